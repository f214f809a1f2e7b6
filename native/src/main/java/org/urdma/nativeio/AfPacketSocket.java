package org.urdma.nativeio;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;
import static org.urdma.nativeio.LinuxConstants.*;

/**
 * An AF_PACKET SOCK_RAW socket bound to one interface, with mmap'ed TPACKET_V3 (or V2) RX and TX rings.
 *
 * <p>RX: {@link #receive(FrameHandler)} walks every ring block (V3) or frame (V2) the kernel has
 * handed over, calls the handler with a zero-copy {@link RxFrame}, and gives each block back right
 * after its frames. {@link #pollIn(int)} waits.
 *
 * <p>TX (zero copy): {@link #txAcquire()} a slot, write the frame at {@link #txDataOffset(int)} in
 * {@link #txBuffer()}, {@link #txCommit(int, int)}, and after a batch {@link #flush()} sends every
 * committed frame with one syscall. {@link #send(MemorySegment, int)} is the copying path.
 *
 * <p>One thread at a time per direction; RX and TX may be used from two threads. All descriptors and
 * mappings are released by {@link #close()} (the ring lives in this socket's own Arena).
 */
public final class AfPacketSocket implements AutoCloseable {
    private static final VarHandle INT = ValueLayout.JAVA_INT.varHandle();
    private static final int PAGE = 4096;
    private static final int SOCKADDR_LL_SIZE = 20;
    // tpacket_block_desc: version(4) offset_to_priv(4) then tpacket_hdr_v1
    private static final int BD_STATUS = 8;
    private static final int BD_NUM_PKTS = 12;
    private static final int BD_FIRST_PKT = 16;
    // tpacket3_hdr
    private static final int H3_NEXT = 0, H3_SEC = 4, H3_NSEC = 8, H3_SNAPLEN = 12, H3_LEN = 16,
            H3_STATUS = 20, H3_MAC = 24, H3_VLAN_TCI = 32, H3_VLAN_TPID = 36;
    // tpacket2_hdr
    private static final int H2_STATUS = 0, H2_LEN = 4, H2_SNAPLEN = 8, H2_MAC = 12, H2_SEC = 16,
            H2_NSEC = 20, H2_VLAN_TCI = 24, H2_VLAN_TPID = 26;
    private static final int TPACKET2_HDRLEN = 52;
    /** struct mmsghdr (msghdr 56 + msg_len 4, padded) and struct iovec on x86-64. */
    private static final int MMSGHDR_SIZE = 64, MSG_IOV = 16, MSG_IOVLEN = 24, IOVEC_SIZE = 16;
    /** Copy slots (see {@link AfPacketOptions#copySendMax}) a flush can hold. */
    private static final int COPY_SLOTS = 64;

    private final String interfaceName;
    private final int ifindex;
    private final int mtu;
    private final boolean v3;
    private final Arena arena;
    private int fd;
    /** A second socket, bound to the interface without rings, for copy sends: with a TX ring, send(2) and
     * sendmmsg(2) on {@link #fd} always walk the ring and ignore the buffers passed. -1 when unused. */
    private int copyFd = -1;
    private boolean closed;

    // RX ring
    private final MemorySegment rxRing;
    private final int rxBlockSize, rxBlockCount, rxFrameSize, rxFrameCount;
    private int rxCursor;
    /** The handler asked to end the V2 burst after the current frame ({@link #endBurst}). */
    private boolean burstEnded;
    /** V2: offset of each RX frame slot (frames do not span blocks; no division per frame). */
    private final long[] rxSlotOffsets;
    private final RxFrame frame = new RxFrame();

    // TX ring
    private final MemorySegment txRing;
    private final int txFrameSize, txFrameCount, txFramesPerBlock, txBlockSize, txDataOff, txLenOff, txStatusOff;
    private final int txMaxFrame;
    /** Offset of each TX slot's header (slots do not span blocks; no division per frame). */
    private final long[] txSlotOffsets;
    private int txHead;
    private int txUnflushed;
    /**
     * Copy slots: frames that leave by sendmmsg(2) on {@link #copyFd}, numbered {@code txFrameCount + i} after the
     * ring's slots. They live outside the ring because the kernel's ring walk stops at the first slot not marked
     * SEND_REQUEST: a ring slot sent another way would block every ring frame behind it.
     */
    private final int copySendMax;
    private final MemorySegment copyArea;
    private final int copySlotSize;
    /** One mmsghdr (64 bytes each, from this address) per copy slot pointing at its iovec, which points at its frame. */
    private final long copyMsgs;
    private final MemorySegment copyIovs;
    private int copyFirst;
    private int copyPending;
    /** Bytes committed to the ring that the kernel has not taken yet (also those not kicked yet). */
    private long ringBacklog;

    private final MemorySegment pollFd;
    /** ppoll's {@code struct timespec} (seconds, nanoseconds). */
    private final MemorySegment pollTimeout;
    private final MemorySegment statsBuf;
    private final MemorySegment statsLen;
    private long statPackets, statDrops, statFreeze;

    @SuppressWarnings("restricted") // reinterpret of the ring mapping returned by mmap
    private AfPacketSocket(String name, AfPacketOptions o) {
        NetInterface nif = NetInterface.lookup(name);
        this.interfaceName = name;
        this.ifindex = nif.index();
        this.mtu = nif.mtu();
        this.v3 = o.version == AfPacketOptions.Version.V3;
        this.arena = Arena.ofShared();
        boolean ok = false;
        try {
            fd = packetSocket("AF_PACKET, SOCK_RAW");
            MemorySegment opt = arena.allocate(JAVA_INT);
            setInt(fd, opt, SOL_PACKET, PACKET_VERSION, v3 ? TPACKET_V3 : TPACKET_V2, "PACKET_VERSION");
            if (o.qdiscBypass) {
                setInt(fd, opt, SOL_PACKET, PACKET_QDISC_BYPASS, 1, "PACKET_QDISC_BYPASS");
            }
            if (o.ignoreOutgoing) {
                setInt(fd, opt, SOL_PACKET, PACKET_IGNORE_OUTGOING, 1, "PACKET_IGNORE_OUTGOING");
            }
            if (o.txRing) {
                // PACKET_LOSS (before any ring: EBUSY after): a malformed TX slot is skipped, not a ring stall
                setInt(fd, opt, SOL_PACKET, PACKET_LOSS, 1, "PACKET_LOSS");
            }
            if (o.sendBufferBytes > 0) {
                setInt(fd, opt, SOL_SOCKET, SO_SNDBUFFORCE, o.sendBufferBytes, "SO_SNDBUFFORCE");
            }

            long rxBytes = 0;
            if (o.rxRing) {
                rxBlockSize = o.rxBlockSize;
                rxBlockCount = o.rxBlockCount;
                rxFrameSize = o.rxFrameSize;
                rxFrameCount = (rxBlockSize / rxFrameSize) * rxBlockCount;
                MemorySegment req = arena.allocate(28, 4);
                req.set(JAVA_INT, 0, rxBlockSize);
                req.set(JAVA_INT, 4, rxBlockCount);
                req.set(JAVA_INT, 8, rxFrameSize);
                req.set(JAVA_INT, 12, rxFrameCount);
                req.set(JAVA_INT, 16, v3 ? o.rxRetireTimeoutMs : 0);
                Libc.check(Libc.setsockopt(fd, SOL_PACKET, PACKET_RX_RING, req, v3 ? 28 : 16), "setsockopt",
                        "PACKET_RX_RING block " + rxBlockSize + " x " + rxBlockCount + ", frame " + rxFrameSize);
                rxBytes = (long) rxBlockSize * rxBlockCount;
                rxSlotOffsets = slotOffsets(rxFrameCount, rxBlockSize / rxFrameSize, rxBlockSize, rxFrameSize);
            } else {
                rxBlockSize = rxBlockCount = rxFrameSize = rxFrameCount = 0;
                rxSlotOffsets = new long[0];
            }

            long txBytes = 0;
            if (o.txRing) {
                txFrameSize = o.txFrameSize;
                txBlockSize = txBlockSizeFor(txFrameSize);
                txFramesPerBlock = txBlockSize / txFrameSize;
                int blocks = (o.txFrameCount + txFramesPerBlock - 1) / txFramesPerBlock;
                txFrameCount = blocks * txFramesPerBlock;
                MemorySegment req = arena.allocate(28, 4);
                req.set(JAVA_INT, 0, txBlockSize);
                req.set(JAVA_INT, 4, blocks);
                req.set(JAVA_INT, 8, txFrameSize);
                req.set(JAVA_INT, 12, txFrameCount);
                Libc.check(Libc.setsockopt(fd, SOL_PACKET, PACKET_TX_RING, req, v3 ? 28 : 16), "setsockopt",
                        "PACKET_TX_RING frame " + txFrameSize + " x " + txFrameCount);
                txBytes = (long) txBlockSize * blocks;
                // frame data starts at tp_hdrlen - sizeof(sockaddr_ll) (kernel tpacket_parse_header)
                txDataOff = (v3 ? TPACKET3_HDRLEN : TPACKET2_HDRLEN) - SOCKADDR_LL_SIZE;
                txLenOff = v3 ? H3_LEN : H2_LEN;
                txStatusOff = v3 ? H3_STATUS : H2_STATUS;
                // the kernel accepts MTU + Ethernet header (+ 4 for a VLAN tag) per frame
                txMaxFrame = Math.min(txFrameSize - txDataOff, mtu + 14 + 4);
                txSlotOffsets = slotOffsets(txFrameCount, txFramesPerBlock, txBlockSize, txFrameSize);
                copySendMax = Math.min(o.copySendMax, txMaxFrame);
            } else {
                copySendMax = 0;
                txFrameSize = txBlockSize = txFramesPerBlock = txFrameCount = 0;
                txDataOff = txLenOff = txStatusOff = 0;
                txMaxFrame = mtu + 14 + 4;
                txSlotOffsets = new long[0];
            }

            long total = rxBytes + txBytes;
            if (total > 0) {
                MemorySegment addr = Libc.mmap(MemorySegment.NULL, total, PROT_READ | PROT_WRITE,
                        MAP_SHARED | MAP_POPULATE, fd, 0);
                if (addr.address() == Libc.MAP_FAILED) {
                    throw NativeException.of("mmap", Libc.errno(), "packet rings, " + total + " bytes");
                }
                MemorySegment all = addr.reinterpret(total, arena, s -> Libc.munmap(s, total));
                rxRing = all.asSlice(0, rxBytes);
                txRing = all.asSlice(rxBytes, txBytes);
            } else {
                rxRing = MemorySegment.NULL;
                txRing = MemorySegment.NULL;
            }

            MemorySegment sll = arena.allocate(SOCKADDR_LL_SIZE, 4);
            bind(fd, sll, o.protocol, "interface '" + name + "' (index " + ifindex + "), protocol 0x"
                    + Integer.toHexString(o.protocol));

            if (o.promiscuous) {
                MemorySegment mreq = arena.allocate(16, 4);
                mreq.set(JAVA_INT, 0, ifindex);
                mreq.set(JAVA_SHORT, 4, (short) PACKET_MR_PROMISC);
                Libc.check(Libc.setsockopt(fd, SOL_PACKET, PACKET_ADD_MEMBERSHIP, mreq, 16), "setsockopt",
                        "PACKET_ADD_MEMBERSHIP PACKET_MR_PROMISC on '" + name + "'");
            }
            if (copySendMax > 0) {
                copyFd = packetSocket("AF_PACKET, SOCK_RAW (copy sends)");
                if (o.qdiscBypass) {
                    setInt(copyFd, opt, SOL_PACKET, PACKET_QDISC_BYPASS, 1, "PACKET_QDISC_BYPASS (copy sends)");
                }
                if (o.sendBufferBytes > 0) {
                    setInt(copyFd, opt, SOL_SOCKET, SO_SNDBUFFORCE, o.sendBufferBytes, "SO_SNDBUFFORCE (copy sends)");
                }
                bind(copyFd, sll, 0, "interface '" + name + "' (copy sends)"); // protocol 0: it receives nothing
                copySlotSize = (copySendMax + 63) & ~63;
                copyArea = arena.allocate((long) copySlotSize * COPY_SLOTS, 64);
                MemorySegment msgs = arena.allocate(MMSGHDR_SIZE * (long) COPY_SLOTS, 8);
                copyIovs = arena.allocate(IOVEC_SIZE * (long) COPY_SLOTS, 8);
                for (int i = 0; i < COPY_SLOTS; i++) {
                    // msghdr: no name (the socket is bound to the interface), one iovec, no control data
                    copyIovs.set(JAVA_LONG, IOVEC_SIZE * (long) i, copyArea.address() + (long) copySlotSize * i);
                    msgs.set(JAVA_LONG, MMSGHDR_SIZE * (long) i + MSG_IOV, copyIovs.address() + IOVEC_SIZE * (long) i);
                    msgs.set(JAVA_LONG, MMSGHDR_SIZE * (long) i + MSG_IOVLEN, 1);
                }
                copyMsgs = msgs.address();
            } else {
                copySlotSize = 0;
                copyArea = null;
                copyIovs = null;
                copyMsgs = 0;
            }
            pollFd = arena.allocate(8, 4);
            pollFd.set(JAVA_INT, 0, fd);
            pollTimeout = arena.allocate(16, 8);
            statsBuf = arena.allocate(12, 4);
            statsLen = arena.allocate(JAVA_INT);
            ok = true;
        } finally {
            if (!ok) {
                releaseResources();
            }
        }
    }

    /**
     * Opens a socket on {@code interfaceName} in the calling thread's network namespace.
     *
     * @throws NativeException "needs CAP_NET_RAW (run as root)" without privileges; names the
     *                         interface if it does not exist
     */
    public static AfPacketSocket open(String interfaceName, AfPacketOptions options) {
        return new AfPacketSocket(interfaceName, options);
    }

    /**
     * A power-of-two block (the kernel allocates 2^order pages per block anyway) that wastes at most an
     * eighth of itself on the slack after the last whole frame, up to 128 KiB.
     */
    static int txBlockSizeFor(int frameSize) {
        int block = Math.max(PAGE, Integer.highestOneBit(frameSize - 1) << 1);
        while (block % frameSize > block / 8 && block < (1 << 17)) {
            block <<= 1;
        }
        return block;
    }

    /** Opens a socket on {@code interfaceName} with {@link AfPacketOptions#forMtu} of its MTU. */
    public static AfPacketSocket open(String interfaceName) {
        return new AfPacketSocket(interfaceName, AfPacketOptions.forMtu(NetInterface.lookup(interfaceName).mtu()));
    }

    static NativeException permissionAware(String fn, int errno, String ctx) {
        if (errno == Errno.EPERM || errno == Errno.EACCES) {
            return new NativeException(fn, errno, fn + "(" + ctx + ") failed: " + Libc.strerror(errno)
                    + " - AF_PACKET needs CAP_NET_RAW (run as root)");
        }
        return NativeException.of(fn, errno, ctx);
    }

    /** An AF_PACKET raw socket of protocol 0: it receives nothing until bind() picks interface + EtherType. */
    private static int packetSocket(String what) {
        int sock = Libc.socket(AF_PACKET, SOCK_RAW | SOCK_CLOEXEC, 0);
        if (sock < 0) {
            throw permissionAware("socket", Libc.errno(), what);
        }
        return sock;
    }

    private static void setInt(int sock, MemorySegment opt, int level, int name, int value, String what) {
        opt.set(JAVA_INT, 0, value);
        Libc.check(Libc.setsockopt(sock, level, name, opt, 4), "setsockopt", what + "=" + value);
    }

    /** Binds {@code sock} to this socket's interface and {@code protocol} (host order; 0 = receive nothing). */
    private void bind(int sock, MemorySegment sll, int protocol, String what) {
        sll.set(JAVA_SHORT, 0, (short) AF_PACKET);
        sll.set(JAVA_SHORT, 2, Short.reverseBytes((short) protocol)); // network byte order
        sll.set(JAVA_INT, 4, ifindex);
        Libc.check(Libc.bind(sock, sll, SOCKADDR_LL_SIZE), "bind", what);
    }

    // ------------------------------------------------------------------ RX

    /**
     * Delivers every frame the kernel has handed over, returning each block (V3) or frame (V2) to the
     * kernel right after its frames; at most one lap of the ring per call. Never blocks.
     *
     * @return number of frames delivered
     */
    public int receive(FrameHandler handler) {
        if (rxBlockCount == 0) {
            throw new IllegalStateException("socket on '" + interfaceName + "' has no RX ring");
        }
        burstEnded = false;
        return v3 ? receiveV3(handler) : receiveV2(handler);
    }

    /**
     * Called from a handler: the {@link #receive} call in progress returns after this frame, without looking at the next
     * slot (on a TPACKET_V2 ring; a V3 block is handed over whole). The frames behind it wait for the next call.
     */
    public void endBurst() {
        burstEnded = true;
    }

    private int receiveV3(FrameHandler handler) {
        final MemorySegment ring = rxRing;
        final RxFrame f = frame;
        f.buffer = ring;
        int delivered = 0;
        for (int b = 0; b < rxBlockCount; b++) {
            long blk = (long) rxCursor * rxBlockSize;
            int bstatus = (int) INT.getAcquire(ring, blk + BD_STATUS);
            if ((bstatus & TP_STATUS_USER) == 0) {
                break;
            }
            int n = ring.get(JAVA_INT, blk + BD_NUM_PKTS);
            long p = blk + Integer.toUnsignedLong(ring.get(JAVA_INT, blk + BD_FIRST_PKT));
            for (int i = 0; i < n; i++) {
                f.length = ring.get(JAVA_INT, p + H3_SNAPLEN);
                f.wireLength = ring.get(JAVA_INT, p + H3_LEN);
                f.status = ring.get(JAVA_INT, p + H3_STATUS);
                f.offset = p + Short.toUnsignedInt(ring.get(JAVA_SHORT, p + H3_MAC));
                f.sec = Integer.toUnsignedLong(ring.get(JAVA_INT, p + H3_SEC));
                f.nsec = Integer.toUnsignedLong(ring.get(JAVA_INT, p + H3_NSEC));
                f.vlanTci = ring.get(JAVA_INT, p + H3_VLAN_TCI);
                f.vlanTpid = Short.toUnsignedInt(ring.get(JAVA_SHORT, p + H3_VLAN_TPID));
                handler.onFrame(f);
                delivered++;
                p += Integer.toUnsignedLong(ring.get(JAVA_INT, p + H3_NEXT));
            }
            INT.setRelease(ring, blk + BD_STATUS, TP_STATUS_KERNEL);
            rxCursor = rxCursor + 1 == rxBlockCount ? 0 : rxCursor + 1;
        }
        return delivered;
    }

    private int receiveV2(FrameHandler handler) {
        final MemorySegment ring = rxRing;
        final RxFrame f = frame;
        f.buffer = ring;
        final long[] slots = rxSlotOffsets;
        int delivered = 0;
        for (int i = 0; i < rxFrameCount; i++) {
            long p = slots[rxCursor];
            int status = (int) INT.getAcquire(ring, p + H2_STATUS);
            if ((status & TP_STATUS_USER) == 0) {
                break;
            }
            f.status = status;
            f.wireLength = ring.get(JAVA_INT, p + H2_LEN);
            f.length = ring.get(JAVA_INT, p + H2_SNAPLEN);
            f.offset = p + Short.toUnsignedInt(ring.get(JAVA_SHORT, p + H2_MAC));
            f.sec = Integer.toUnsignedLong(ring.get(JAVA_INT, p + H2_SEC));
            f.nsec = Integer.toUnsignedLong(ring.get(JAVA_INT, p + H2_NSEC));
            f.vlanTci = Short.toUnsignedInt(ring.get(JAVA_SHORT, p + H2_VLAN_TCI));
            f.vlanTpid = Short.toUnsignedInt(ring.get(JAVA_SHORT, p + H2_VLAN_TPID));
            handler.onFrame(f);
            delivered++;
            INT.setRelease(ring, p + H2_STATUS, TP_STATUS_KERNEL);
            rxCursor = rxCursor + 1 == rxFrameCount ? 0 : rxCursor + 1;
            if (burstEnded) {
                break;
            }
        }
        return delivered;
    }

    /**
     * Copying receive for sockets without an RX ring (recv(2), non-blocking).
     *
     * @return frame length (the wire length, may exceed {@code maxLen} if truncated), or -errno
     *         (-EAGAIN when nothing is queued)
     */
    public int receive(MemorySegment buffer, int maxLen) {
        if (rxBlockCount != 0) {
            throw new IllegalStateException("socket on '" + interfaceName + "' has an RX ring: use receive(FrameHandler)");
        }
        if (!buffer.isNative()) {
            long n = Libc.recv(fd, buffer, maxLen, MSG_DONTWAIT | MSG_TRUNC);
            return n < 0 ? -Libc.errno() : (int) n;
        }
        if (maxLen < 0 || maxLen > buffer.byteSize()) {
            throw new IllegalArgumentException("maxLen: must be in [0, " + buffer.byteSize() + "] (the buffer's size), was " + maxLen);
        }
        return (int) Libc.recvNonBlocking(fd, buffer.address(), maxLen, MSG_DONTWAIT | MSG_TRUNC);
    }

    /**
     * Waits up to {@code timeoutMs} (-1 = forever, 0 = check) for received frames.
     *
     * @return true if readable (or an error is pending), false on timeout or EINTR
     */
    public boolean pollIn(int timeoutMs) {
        return poll(POLLIN, timeoutMs);
    }

    /**
     * Waits up to {@code timeoutNanos} (ppoll(2): nanosecond resolution, unlike poll's milliseconds) for received frames,
     * and with {@code orWritable} also for room to send (frames the kernel did not take yet).
     *
     * @return true if ready (or an error is pending), false on timeout or EINTR
     */
    public boolean pollNanos(boolean orWritable, long timeoutNanos) {
        long t = Math.max(0, timeoutNanos);
        pollTimeout.set(JAVA_LONG, 0, t / 1_000_000_000L);
        pollTimeout.set(JAVA_LONG, 8, t % 1_000_000_000L);
        pollFd.set(JAVA_SHORT, 4, orWritable ? (short) (POLLIN | POLLOUT) : POLLIN);
        pollFd.set(JAVA_SHORT, 6, (short) 0);
        if (t == 0) {
            return readyNow();
        }
        return ready(Libc.ppoll(pollFd, 1, pollTimeout), "ppoll");
    }

    /** Waits up to {@code timeoutMs} until a TX slot is free (or send(2) would not block). */
    public boolean pollOut(int timeoutMs) {
        return poll(POLLOUT, timeoutMs);
    }

    private boolean poll(short events, int timeoutMs) {
        pollFd.set(JAVA_SHORT, 4, events);
        pollFd.set(JAVA_SHORT, 6, (short) 0);
        if (timeoutMs == 0) {
            return readyNow();
        }
        return ready(Libc.poll(pollFd, 1, timeoutMs), "poll");
    }

    /** A check that does not wait: a critical downcall, allocation-free whatever the JIT inlines. */
    private boolean readyNow() {
        int rc = Libc.pollNow(pollFd.address(), 1);
        if (rc < 0) {
            if (rc == -Errno.EINTR) {
                return false;
            }
            throw NativeException.of("poll", -rc, "AF_PACKET on '" + interfaceName + "'");
        }
        return rc > 0;
    }

    /** A poll call's result: ready, or not (timeout, EINTR); other errors throw naming the call. */
    private boolean ready(int rc, String call) {
        if (rc < 0) {
            int errno = Libc.errno();
            if (errno == Errno.EINTR) {
                return false;
            }
            throw NativeException.of(call, errno, "AF_PACKET on '" + interfaceName + "'");
        }
        return rc > 0;
    }

    // ------------------------------------------------------------------ TX

    /** The mapped TX ring (write frames at {@link #txDataOffset(int)}). */
    public MemorySegment txBuffer() {
        return txRing;
    }

    /**
     * The next TX slot if the kernel has finished with it, else -1 (ring full: {@link #flush()} and/or
     * {@link #pollOut(int)}). Calling it again before {@link #txCommit} returns the same slot.
     */
    public int txAcquire() {
        if (txFrameCount == 0) {
            throw new IllegalStateException("socket on '" + interfaceName + "' has no TX ring");
        }
        int status = (int) INT.getAcquire(txRing, slotBase(txHead) + txStatusOff);
        return status == TP_STATUS_AVAILABLE ? txHead : -1;
    }

    /**
     * A slot for a frame of at most {@code maxLength} bytes, or -1 (full: {@link #flush()} and retry). With
     * {@link AfPacketOptions#copySendMax} set, a short frame gets a copy slot (sent by sendmmsg) unless ring frames
     * are still waiting for the kernel; a long one gets a ring slot once the copies before it are sent. So frames
     * always leave in the order they were committed. Write at {@link #txDataAddress(int)}.
     */
    public int txAcquire(int maxLength) {
        if (maxLength <= copySendMax) {
            if (ringBacklog > 0) {
                kickRing(false);
            }
            if (ringBacklog == 0) {
                return copyPending == COPY_SLOTS ? -1 : txFrameCount + (copyFirst + copyPending) % COPY_SLOTS;
            }
        } else if (copyPending > 0) {
            sendCopies(false); // the copies before it leave first
            if (copyPending > 0) {
                return -1;
            }
        }
        return txAcquire();
    }

    /** Offset in {@link #txBuffer()} where the frame (Ethernet header first) of {@code slot} goes. */
    public long txDataOffset(int slot) {
        return slotBase(slot) + txDataOff;
    }

    /** Absolute address of {@code slot}'s frame area (e.g. for Agrona's UnsafeBuffer.wrap(address, length)). */
    public long txDataAddress(int slot) {
        if (slot >= txFrameCount) {
            return copyArea.address() + (long) copySlotSize * (slot - txFrameCount);
        }
        return txRing.address() + txDataOffset(slot);
    }

    /** A slice over the frame area of {@code slot} (allocates a segment view; for non-hot paths). */
    public MemorySegment txSlot(int slot) {
        return txRing.asSlice(txDataOffset(slot), txMaxFrame);
    }

    /** Largest frame (Ethernet header included) a slot or the link accepts. */
    public int txMaxFrameLength() {
        return txMaxFrame;
    }

    /** Hands {@code slot} (the one from {@link #txAcquire()}) with a {@code length}-byte frame to the kernel. */
    public void txCommit(int slot, int length) {
        if (slot >= txFrameCount && copySendMax > 0) {
            int i = slot - txFrameCount;
            if (copyPending == COPY_SLOTS || i != (copyFirst + copyPending) % COPY_SLOTS) {
                throw new IllegalArgumentException("slot must be the one txAcquire(int) returned, got " + slot);
            }
            if (length < 14 || length > copySendMax) {
                throw new IllegalArgumentException("frame length must be in [14, " + copySendMax + "], got " + length);
            }
            copyIovs.set(JAVA_LONG, IOVEC_SIZE * (long) i + 8, length);
            copyPending++;
            txUnflushed++;
            return;
        }
        if (slot != txHead) {
            throw new IllegalArgumentException("slot must be the one txAcquire() returned (" + txHead + "), got " + slot);
        }
        if (length < 14 || length > txMaxFrame) {
            throw new IllegalArgumentException("frame length must be in [14, " + txMaxFrame + "], got " + length);
        }
        long base = slotBase(slot);
        txRing.set(JAVA_INT, base + txLenOff, length);
        if (v3) {
            txRing.set(JAVA_INT, base + H3_NEXT, 0);
        }
        INT.setRelease(txRing, base + txStatusOff, TP_STATUS_SEND_REQUEST);
        txHead = txHead + 1 == txFrameCount ? 0 : txHead + 1;
        txUnflushed++;
        ringBacklog += length;
    }

    /** Copies a frame into the next TX slot and commits it; false if the ring is full. */
    public boolean txOffer(MemorySegment src, long srcOffset, int length) {
        int slot = txAcquire();
        if (slot < 0) {
            return false;
        }
        if (length < 14 || length > txMaxFrame) {
            throw new IllegalArgumentException("frame length must be in [14, " + txMaxFrame + "], got " + length);
        }
        MemorySegment.copy(src, srcOffset, txRing, txDataOffset(slot), length);
        txCommit(slot, length);
        return true;
    }

    /** Whether committed frames wait for the kernel (ring slots it has not taken, copies not sent). */
    public boolean txPending() {
        return ringBacklog > 0 || copyPending > 0;
    }

    /** Frames committed since the last successful {@link #flush()}. */
    public int txUnflushed() {
        return txUnflushed;
    }

    /**
     * Asks the kernel to send every committed TX slot (send(fd, NULL, 0, MSG_DONTWAIT)): one syscall
     * for the whole batch.
     *
     * @return bytes queued (>= 0), 0 when the device is busy (EAGAIN/ENOBUFS: call again), or -errno
     */
    public long flush() {
        return flush(false);
    }

    /** Like {@link #flush()}; with {@code wait} it blocks until the kernel has sent all of them. */
    public long flush(boolean wait) {
        // at most one kind waits at a time (txAcquire(int) sends the other first)
        long rc = copyPending > 0 ? sendCopies(wait) : kickRing(wait);
        if (rc >= 0) {
            txUnflushed = copyPending;
        }
        return rc;
    }

    /** send(fd, NULL, 0): the kernel walks the ring and sends every SEND_REQUEST slot. */
    private long kickRing(boolean wait) {
        // the non-waiting kick is a critical downcall: errno capture slices its state segment per call, an allocation
        // only C2's escape analysis removes, when it inlines the whole call (not on every machine: DataPathAllocationTest)
        long rc = wait ? sendWaiting() : Libc.sendNonBlocking(fd, 0, 0, MSG_DONTWAIT);
        if (rc < 0) {
            return kickFailed((int) -rc);
        }
        if (ringBacklog > 0) {
            settleBacklog(rc);
        }
        return rc;
    }

    private long sendWaiting() {
        long rc = Libc.send(fd, MemorySegment.NULL, 0, 0);
        return rc < 0 ? -Libc.errno() : rc;
    }

    private long kickFailed(int errno) {
        if (errno == Errno.EAGAIN || errno == Errno.ENOBUFS) {
            return 0;
        }
        ringBacklog = 0; // the kernel dropped what it could not send
        return -errno;
    }

    /** Takes the {@code taken} bytes off the backlog. */
    private void settleBacklog(long taken) {
        ringBacklog = Math.max(0, ringBacklog - taken);
        // the kernel takes slots in order: once the last committed one has left SEND_REQUEST, nothing waits (so a
        // frame it skipped without counting, PACKET_LOSS, cannot hold copies on the ring for good)
        int last = txHead == 0 ? txFrameCount - 1 : txHead - 1;
        if (ringBacklog > 0 && (int) INT.getAcquire(txRing, slotBase(last) + txStatusOff) != TP_STATUS_SEND_REQUEST) {
            ringBacklog = 0;
        }
    }

    /**
     * sendmmsg(2) of the waiting copy slots (two calls when they wrap). Returns bytes sent, 0 when the socket is
     * busy (the rest waits for the next flush), or -errno (the waiting copies are dropped, as the ring would).
     */
    private long sendCopies(boolean wait) {
        long sent = 0;
        while (copyPending > 0) {
            int n = Math.min(copyPending, COPY_SLOTS - copyFirst);
            long vec = copyMsgs + MMSGHDR_SIZE * (long) copyFirst;
            int rc = wait ? Libc.sendmmsg(copyFd, vec, n, 0) : Libc.sendmmsgNonBlocking(copyFd, vec, n, MSG_DONTWAIT);
            if (rc < 0) {
                int errno = wait ? Libc.errno() : -rc;
                if (errno == Errno.EAGAIN || errno == Errno.ENOBUFS) {
                    return sent;
                }
                copyPending = 0;
                return -errno;
            }
            for (int i = 0; i < rc; i++) {
                sent += copyIovs.get(JAVA_LONG, IOVEC_SIZE * (long) (copyFirst + i) + 8);
            }
            copyPending -= rc;
            copyFirst = (copyFirst + rc) % COPY_SLOTS;
            if (rc < n) {
                return sent; // the socket took part of the batch: the rest waits
            }
        }
        return sent;
    }

    /** True if the kernel has released every TX slot (all frames sent or dropped). */
    public boolean txIdle() {
        if (copyPending > 0) {
            return false;
        }
        for (int i = 0; i < txFrameCount; i++) {
            if ((int) INT.getAcquire(txRing, slotBase(i) + txStatusOff) != TP_STATUS_AVAILABLE) {
                return false;
            }
        }
        return true;
    }

    private long slotBase(int slot) {
        return txSlotOffsets[slot];
    }

    private static long[] slotOffsets(int count, int perBlock, int blockSize, int frameSize) {
        long[] o = new long[count];
        for (int i = 0; i < count; i++) {
            o[i] = (long) (i / perBlock) * blockSize + (long) (i % perBlock) * frameSize;
        }
        return o;
    }

    /**
     * Sends one frame. Without a TX ring this is send(2) (non-blocking, one copy into the kernel); with a
     * TX ring it copies into the next slot and flushes (send(2) would ignore the buffer then).
     *
     * @return bytes sent, or -errno (-EAGAIN / -ENOBUFS when the device or ring is full)
     */
    public long send(MemorySegment frame, int length) {
        if (length < 14 || length > txMaxFrame || length > frame.byteSize()) {
            throw new IllegalArgumentException("frame length must be in [14, " + Math.min(txMaxFrame, frame.byteSize())
                    + "], got " + length);
        }
        if (txFrameCount != 0) {
            if (!txOffer(frame, 0, length)) {
                flush();
                return -Errno.ENOBUFS;
            }
            long rc = flush();
            return rc < 0 ? rc : length;
        }
        if (frame.isNative()) {
            return Libc.sendNonBlocking(fd, frame.address(), length, MSG_DONTWAIT);
        }
        long rc = Libc.send(fd, frame, length, MSG_DONTWAIT);
        return rc < 0 ? -Libc.errno() : rc;
    }

    // ------------------------------------------------------------------ misc

    /** Cumulative PACKET_STATISTICS since open (reading resets the kernel's counters, so we add up). */
    public PacketStatistics statistics() {
        statsLen.set(JAVA_INT, 0, v3 ? 12 : 8);
        Libc.check(Libc.getsockopt(fd, SOL_PACKET, PACKET_STATISTICS, statsBuf, statsLen), "getsockopt",
                "PACKET_STATISTICS");
        statPackets += Integer.toUnsignedLong(statsBuf.get(JAVA_INT, 0));
        statDrops += Integer.toUnsignedLong(statsBuf.get(JAVA_INT, 4));
        if (v3) {
            statFreeze += Integer.toUnsignedLong(statsBuf.get(JAVA_INT, 8));
        }
        return new PacketStatistics(statPackets, statDrops, statFreeze);
    }

    public int fd() {
        return fd;
    }

    public String interfaceName() {
        return interfaceName;
    }

    public int interfaceIndex() {
        return ifindex;
    }

    /** MTU of the interface when the socket was opened. */
    public int mtu() {
        return mtu;
    }

    public boolean isClosed() {
        return closed;
    }

    /**
     * Adds group MAC {@code mac} (low 48 bits) to the interface's multicast filter for this socket's lifetime
     * (PACKET_ADD_MEMBERSHIP, PACKET_MR_MULTICAST), as the kernel's dev_mc_add does for an rxe group.
     */
    public void joinMulticast(long mac) {
        multicastMembership(PACKET_ADD_MEMBERSHIP, mac, "PACKET_ADD_MEMBERSHIP");
    }

    /** Takes group MAC {@code mac} out of the filter again (PACKET_DROP_MEMBERSHIP). */
    public void leaveMulticast(long mac) {
        multicastMembership(PACKET_DROP_MEMBERSHIP, mac, "PACKET_DROP_MEMBERSHIP");
    }

    private void multicastMembership(int op, long mac, String what) {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment mreq = a.allocate(16, 4); // struct packet_mreq: ifindex, type, alen, address[8]
            mreq.set(JAVA_INT, 0, ifindex);
            mreq.set(JAVA_SHORT, 4, (short) PACKET_MR_MULTICAST);
            mreq.set(JAVA_SHORT, 6, (short) 6);
            for (int i = 0; i < 6; i++) mreq.set(JAVA_BYTE, 8 + i, (byte) (mac >>> (40 - 8 * i)));
            Libc.check(Libc.setsockopt(fd, SOL_PACKET, op, mreq, 16), "setsockopt",
                    what + " PACKET_MR_MULTICAST " + String.format("%012x", mac) + " on '" + interfaceName + "'");
        }
    }

    /** Unmaps the rings and closes the descriptor; idempotent. */
    @Override
    public void close() {
        if (!closed) {
            closed = true;
            releaseResources();
        }
    }

    private void releaseResources() {
        try {
            arena.close();
        } finally {
            if (fd >= 0) {
                Libc.close(fd);
                fd = -1;
            }
            if (copyFd >= 0) {
                Libc.close(copyFd);
                copyFd = -1;
            }
        }
    }

    @Override
    public String toString() {
        return "AfPacketSocket[" + interfaceName + "#" + ifindex + ", fd " + fd + (v3 ? ", V3" : ", V2")
                + ", rx " + rxBlockCount + "x" + rxBlockSize + ", tx " + txFrameCount + "x" + txFrameSize + "]";
    }
}
