package org.urdma.switchemu.rt;

import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;
import org.urdma.nativeio.AfPacketOptions;
import org.urdma.nativeio.AfPacketSocket;
import org.urdma.nativeio.FrameHandler;
import org.urdma.nativeio.NetInterface;
import org.urdma.nativeio.PacketStatistics;
import org.urdma.nativeio.RxFrame;

import java.nio.ByteOrder;

/**
 * A switch port on a network interface (a veth in the switch's namespace) through the native module's
 * AF_PACKET socket: RX ring (TPACKET_V2 by default: per-frame hand-over, no block retire delay), TX ring
 * flushed in batches, promiscuous, not seeing its own transmissions.
 *
 * <p>Zero copy in: the receiver reads the frame inside the RX ring. The kernel strips a received 802.1Q
 * tag into metadata; the port writes it back in place, in front of the EtherType, moving the two MACs 4
 * bytes towards the slot header (a V2/V3 slot has at least 14 spare bytes between the sockaddr_ll and the
 * MAC header), so the switch classifies on PCP and forwards the frame as it was sent. A TCP/UDP checksum
 * the sending kernel left to offload is completed ({@link L4Checksum}). One copy out: the
 * frame goes from the caller's buffer straight into a TX ring slot.
 */
public final class AfPacketPort implements FramePort {
    private final AfPacketSocket socket;
    private final UnsafeBuffer ring = new UnsafeBuffer(0, 0);
    private final UnsafeBuffer tx;
    private final int txMax;
    private final int txBatch;
    private final FrameHandler handler = this::onFrame;
    private Receiver receiver;
    private PacketStatistics closedStatistics;
    private static final int TP_STATUS_CSUMNOTREADY = 1 << 3;
    /** TCP/UDP checksums a sending kernel left to offload (veth), completed here as its NIC would have. */
    long checksumsCompleted;
    /** Frames the kernel truncated to the ring's frame size (dropped here). */
    long truncated;
    /** Times the kernel flagged frames lost before this one (RX ring full). */
    long losing;
    /** Frames refused because they are longer than the interface takes. */
    long tooLong;
    /** Frames refused because the TX ring stayed full. */
    long txFull;
    /** send(2) calls that asked the kernel to transmit the TX ring (one per batch). */
    long txKicks;
    long txFrames;

    public AfPacketPort(AfPacketSocket socket, int txBatch) {
        this.socket = socket;
        this.tx = new UnsafeBuffer(socket.txBuffer().address(), Math.toIntExact(socket.txBuffer().byteSize()));
        this.txMax = socket.txMaxFrameLength();
        this.txBatch = txBatch;
    }

    /** Opens the interface in the calling thread's namespace, rings sized for its MTU and {@code o}. */
    public static AfPacketPort open(String interfaceName, RtOptions o) {
        int mtu = NetInterface.lookup(interfaceName).mtu();
        AfPacketOptions opts = AfPacketOptions.forMtu(mtu);
        // V2 slot: 32-byte header, sockaddr_ll, padding to the MAC header (66 for Ethernet), the frame
        int frame = align16(mtu + 18 + 96);
        int block = 1 << 17;
        while (block < frame * 4) {
            block <<= 1;
        }
        int blocks = Math.max(2, o.rxRingBytes / block);
        opts.version(o.rxVersion).rxRing(block, blocks, frame, 1).promiscuous(true).ignoreOutgoing(true)
            .qdiscBypass(true).sendBuffer(16 << 20).txRing(align16(mtu + 18 + 64), o.txSlots);
        return new AfPacketPort(AfPacketSocket.open(interfaceName, opts), o.txBatch);
    }

    private static int align16(int x) {
        return (x + 15) & ~15;
    }

    public AfPacketSocket socket() {
        return socket;
    }

    @Override
    public int receive(Receiver receiver, int limit) {
        this.receiver = receiver;
        return socket.receive(handler);
    }

    private void onFrame(RxFrame f) {
        if (f.truncated()) {
            truncated++;
            return;
        }
        if (f.losing()) {
            losing++;
        }
        long base = f.buffer().address();
        if (ring.addressOffset() != base) {
            ring.wrap(base, Math.toIntExact(f.buffer().byteSize()));
        }
        int off = Math.toIntExact(f.offset());
        int len = f.length();
        if (f.vlanValid() && len >= 12) {
            int tpid = f.vlanTpid() == 0 ? 0x8100 : f.vlanTpid();
            ring.putBytes(off - 4, ring, off, 12);
            off -= 4;
            len += 4;
            ring.putShort(off + 12, (short) tpid, ByteOrder.BIG_ENDIAN);
            ring.putShort(off + 14, (short) f.vlanTci(), ByteOrder.BIG_ENDIAN);
        }
        if ((f.status() & TP_STATUS_CSUMNOTREADY) != 0 && L4Checksum.complete(ring, off, len)) {
            checksumsCompleted++;
        }
        receiver.onFrame(ring, off, len, f.timestampNanos());
    }

    @Override
    public int readableFd() {
        return socket.fd();
    }

    @Override
    public boolean send(DirectBuffer buffer, int offset, int length) {
        if (length < 14 || length > txMax) {
            tooLong++;
            return false;
        }
        int slot = socket.txAcquire();
        if (slot < 0) {
            socket.flush();
            slot = socket.txAcquire();
            if (slot < 0) {
                txFull++;
                return false;
            }
        }
        tx.putBytes((int) socket.txDataOffset(slot), buffer, offset, length);
        socket.txCommit(slot, length);
        txFrames++;
        if (socket.txUnflushed() >= txBatch) {
            kick();
        }
        return true;
    }

    private int claimedSlot = -1;
    private int claimedOffset;

    @Override
    public org.agrona.MutableDirectBuffer claim(int length) {
        if (length < 14 || length > txMax) {
            return null;
        }
        int slot = socket.txAcquire();
        if (slot < 0) {
            socket.flush();
            slot = socket.txAcquire();
            if (slot < 0) {
                return null;
            }
        }
        claimedSlot = slot;
        claimedOffset = (int) socket.txDataOffset(slot);
        return tx;
    }

    @Override
    public int claimedOffset() {
        return claimedOffset;
    }

    @Override
    public void commit(int length) {
        if (claimedSlot < 0) {
            throw new IllegalStateException("commit without a claim on " + socket.interfaceName());
        }
        socket.txCommit(claimedSlot, length);
        claimedSlot = -1;
        txFrames++;
        if (socket.txUnflushed() >= txBatch) {
            kick();
        }
    }

    @Override
    public void flush() {
        if (socket.txUnflushed() > 0) {
            kick();
        }
    }

    private void kick() {
        txKicks++;
        socket.flush();
    }

    /** send(2) calls made to transmit the TX ring. */
    public long txKicks() {
        return txKicks;
    }

    public long truncated() {
        return truncated;
    }

    public long losing() {
        return losing;
    }

    public long checksumsCompleted() {
        return checksumsCompleted;
    }

    public long tooLong() {
        return tooLong;
    }

    public long txFull() {
        return txFull;
    }

    /** The kernel's cumulative counters of the socket (frames seen, dropped for a full RX ring). */
    public PacketStatistics kernelStatistics() {
        return closedStatistics != null ? closedStatistics : socket.statistics();
    }

    @Override
    public String describeCounters() {
        PacketStatistics ks = kernelStatistics();
        return "kernel rx " + ks.packets() + " seen, " + ks.drops() + " dropped (ring full); rx-truncated " + truncated
            + ", rx-losing " + losing + ", checksums-completed " + checksumsCompleted + ", tx-ring-full " + txFull + ", tx-too-long " + tooLong
            + ", tx kicks " + txKicks + (txKicks == 0 ? "" : String.format(java.util.Locale.ROOT, " (%.1f frames each)", txFrames / (double) txKicks));
    }

    /** Sends what is committed, keeps the kernel's counters, unmaps and closes; idempotent. */
    @Override
    public void close() {
        if (socket.isClosed()) {
            return;
        }
        try {
            socket.flush(true);
            closedStatistics = socket.statistics();
        } finally {
            socket.close();
        }
    }
}
