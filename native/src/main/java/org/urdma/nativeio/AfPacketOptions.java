package org.urdma.nativeio;

import static org.urdma.nativeio.LinuxConstants.ETH_P_ALL;

/**
 * How to open an {@link AfPacketSocket}. Mutable builder with checked setters; defaults suit a
 * 1500-byte-MTU link: TPACKET_V3, 4 MiB RX ring (16 blocks of 256 KiB, 1 ms block retire timeout),
 * 1024-slot TX ring of 2048-byte slots, all frames (ETH_P_ALL), outgoing frames ignored on RX.
 */
public final class AfPacketOptions {
    /** Ring format. V3 RX hands over whole blocks (throughput); V2 hands over single frames (latency). */
    public enum Version { V2, V3 }

    private static final int PAGE = 4096;

    int protocol = ETH_P_ALL;
    Version version = Version.V3;
    boolean rxRing = true;
    int rxBlockSize = 1 << 18;
    int rxBlockCount = 16;
    int rxFrameSize = 2048;
    int rxRetireTimeoutMs = 1;
    boolean txRing = true;
    int txFrameSize = 2048;
    int txFrameCount = 1024;
    boolean qdiscBypass;
    boolean ignoreOutgoing = true;
    boolean promiscuous;
    int sendBufferBytes;
    int copySendMax;

    public static AfPacketOptions defaults() {
        return new AfPacketOptions();
    }

    /** Defaults with TX slots big enough for a tagged frame at {@code mtu}, and a matching RX frame size. */
    public static AfPacketOptions forMtu(int mtu) {
        if (mtu < 68 || mtu > 65535) {
            throw new IllegalArgumentException("mtu must be in [68, 65535], got " + mtu);
        }
        AfPacketOptions o = new AfPacketOptions();
        int slot = align16(LinuxConstants.TPACKET3_HDRLEN - 20 + mtu + 18);
        o.txFrameSize = slot;
        o.rxFrameSize = Math.max(2048, align16(slot + 32));
        if (o.rxBlockSize < o.rxFrameSize * 8) {
            o.rxBlockSize = Integer.highestOneBit(o.rxFrameSize * 8 - 1) << 1;
        }
        return o;
    }

    /** EtherType to receive (host order), e.g. 0x8915 for RoCEv1; ETH_P_ALL (3) for all; 0 for none. */
    public AfPacketOptions protocol(int etherType) {
        if (etherType < 0 || etherType > 0xFFFF) {
            throw new IllegalArgumentException("protocol must be an EtherType in [0, 0xFFFF], got " + etherType);
        }
        this.protocol = etherType;
        return this;
    }

    public AfPacketOptions version(Version v) {
        this.version = java.util.Objects.requireNonNull(v, "version");
        return this;
    }

    /**
     * RX ring geometry. {@code blockSize}: multiple of 4096; {@code frameSize}: multiple of 16, at most
     * blockSize (V2: the largest frame kept whole; V3: only sizes the kernel's frame count);
     * {@code retireTimeoutMs}: V3 hands over a partly filled block after this long (0 = kernel default).
     */
    public AfPacketOptions rxRing(int blockSize, int blockCount, int frameSize, int retireTimeoutMs) {
        if (blockSize <= 0 || blockSize % PAGE != 0) {
            throw new IllegalArgumentException("rx blockSize must be a positive multiple of 4096, got " + blockSize);
        }
        if (blockCount <= 0) {
            throw new IllegalArgumentException("rx blockCount must be > 0, got " + blockCount);
        }
        if (frameSize < 128 || frameSize % 16 != 0 || frameSize > blockSize) {
            throw new IllegalArgumentException("rx frameSize must be a multiple of 16 in [128, blockSize], got " + frameSize);
        }
        if (retireTimeoutMs < 0) {
            throw new IllegalArgumentException("rx retireTimeoutMs must be >= 0, got " + retireTimeoutMs);
        }
        this.rxRing = true;
        this.rxBlockSize = blockSize;
        this.rxBlockCount = blockCount;
        this.rxFrameSize = frameSize;
        this.rxRetireTimeoutMs = retireTimeoutMs;
        return this;
    }

    /** No RX ring: frames are read with {@link AfPacketSocket#receive(java.lang.foreign.MemorySegment, int)}. */
    /** Frames of the largest size the RX ring holds at once (0 without a ring): a receiver's buffer in frames. */
    public int rxRingFrames() {
        return rxRing ? rxBlockSize / rxFrameSize * rxBlockCount : 0;
    }

    public AfPacketOptions noRxRing() {
        this.rxRing = false;
        return this;
    }

    /** TX ring of {@code frameCount} slots of {@code frameSize} bytes (multiple of 16; 48 bytes are header). */
    public AfPacketOptions txRing(int frameSize, int frameCount) {
        if (frameSize < 128 || frameSize % 16 != 0) {
            throw new IllegalArgumentException("tx frameSize must be a multiple of 16 and >= 128, got " + frameSize);
        }
        if (frameCount <= 0) {
            throw new IllegalArgumentException("tx frameCount must be > 0, got " + frameCount);
        }
        this.txRing = true;
        this.txFrameSize = frameSize;
        this.txFrameCount = frameCount;
        return this;
    }

    /** The TX ring's slot count, keeping the slot size (e.g. the one {@link #forMtu} chose). */
    public AfPacketOptions txSlots(int frameCount) {
        return txRing(txFrameSize, frameCount);
    }

    /** No TX ring: {@link AfPacketSocket#send} uses send(2) with a copy per frame. */
    public AfPacketOptions noTxRing() {
        this.txRing = false;
        return this;
    }

    /** PACKET_QDISC_BYPASS: hand frames straight to the driver (faster; drops instead of queueing). */
    public AfPacketOptions qdiscBypass(boolean on) {
        this.qdiscBypass = on;
        return this;
    }

    /** PACKET_IGNORE_OUTGOING: do not see frames this host sends on the interface. */
    public AfPacketOptions ignoreOutgoing(boolean on) {
        this.ignoreOutgoing = on;
        return this;
    }

    /** Put the interface in promiscuous mode for this socket's lifetime (PACKET_MR_PROMISC). */
    public AfPacketOptions promiscuous(boolean on) {
        this.promiscuous = on;
        return this;
    }

    /** SO_SNDBUFFORCE in bytes (0 = leave the default); bounds frames in flight from the TX ring. */
    public AfPacketOptions sendBuffer(int bytes) {
        if (bytes < 0) {
            throw new IllegalArgumentException("sendBuffer must be >= 0, got " + bytes);
        }
        this.sendBufferBytes = bytes;
        return this;
    }

    /**
     * Flushes whose frames are all at most {@code bytes} long go to the kernel with one sendmmsg(2) from the TX
     * slots, which the kernel copies into plain buffers, instead of as ring pages (0, the default: never).
     * Why: a ring frame that crosses a veth (or loopback) has its pages copied again on the way in
     * (skb_copy_ubufs: a page allocated, copied and freed per frame). For small frames that costs more than the
     * copy: an RC ping-pong of two ~80-byte frames per hop is 0.2 us faster per hop with sendmmsg (4.24 vs
     * 4.46 us), 1 KiB and 2 KiB frames gain 0.14-0.3 us; 4 KiB frames stream faster from the ring.
     * Frame order is kept: a flush holding a longer frame sends the whole batch from the ring.
     */
    public AfPacketOptions copySendMax(int bytes) {
        if (bytes < 0) {
            throw new IllegalArgumentException("copySendMax must be >= 0, got " + bytes);
        }
        this.copySendMax = bytes;
        return this;
    }

    static int align16(int x) {
        return (x + 15) & ~15;
    }
}
