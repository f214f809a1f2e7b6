package org.urdma.transport.link.ethernet;

import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;
import org.urdma.transport.link.SlotBuffer;
import org.urdma.nativeio.AfPacketOptions;
import org.urdma.nativeio.AfPacketSocket;
import org.urdma.nativeio.FrameHandler;
import org.urdma.nativeio.LinuxConstants;
import org.urdma.nativeio.RxFrame;
import org.urdma.transport.packet.Link;
import org.urdma.transport.packet.PacketSink;
import org.urdma.transport.packet.Route;
import org.urdma.transport.packet.TxPacket;

/**
 * A device's port on a real interface through an AF_PACKET socket with mmap'ed TPACKET rings.
 * TX: the engine builds each packet straight in a TX slot (copying the payload once from the MR), and
 * committed slots go to the kernel in batches, one syscall per {@link EthernetLinkConfig#flushBatch()} frames
 * or per engine pass: frames up to {@link #COPY_SEND_MAX} from copy slots by sendmmsg, longer ones from the TX ring.
 * RX: frames are decoded in place in the RX ring (the responder copies the payload once into the MR). TPACKET_V2 hands over each frame at once (latency); V3 hands over whole blocks (throughput,
 * a lone frame waits for the block retire timeout). Engine thread only; open in the interface's namespace.
 */
public final class AfPacketLink implements Link, AutoCloseable {
    private final AfPacketSocket socket;
    private final EthernetDatapath datapath;
    private final LinkCounters counters;
    private final UnsafeBuffer txView;
    /** The slot the engine builds its next packet in (unchecked writes: see SlotBuffer). */
    private final SlotBuffer txSlot = new SlotBuffer();
    private final UnsafeBuffer rxView = new UnsafeBuffer(new byte[0]);
    private final int txMax;
    private final int maxPayload;
    private final int flushBatch;
    private final FrameHandler onFrame = this::onFrame;
    /** Where a packet this link cannot carry is written and forgotten. */
    private final UnsafeBuffer scratch = new UnsafeBuffer(java.nio.ByteBuffer.allocateDirect(16384));
    private int claimedSlot = -1;
    private long rxBase;
    private int unflushed;
    // per receive() call
    private PacketSink sink;
    private long now;

    private AfPacketLink(AfPacketSocket socket, EthernetLinkConfig config, long interfaceSpeedBps, int rxRingFrames) {
        this.socket = socket;
        this.datapath = new EthernetDatapath(config, interfaceSpeedBps, rxRingFrames);
        this.counters = datapath.counters;
        this.txView = new UnsafeBuffer(socket.txBuffer().address(), 0); // wrapped over each frame's slot
        this.txMax = socket.txMaxFrameLength();
        this.maxPayload = datapath.maxPayloadFor(socket.mtu());
        this.flushBatch = config.flushBatch();
        datapath.arp().attach(this::sendRaw, datapath.baseTci());
        datapath.attach(this::sendRaw);
    }

    /**
     * TX ring slots. Small on purpose: the kernel frees a slot as soon as it has sent the frame (and on veth it has
     * copied it by then), so a ring of two flush batches never runs dry, and at 128 x ~4.3 KB it stays in the cache.
     * 1024 slots (4.4 MB) made every frame's copy from the MR and the kernel's copy out of the slot miss the cache:
     * 64 KiB write-bw over veth went from 236-243 k to 257-270 k frames/s with 128 (`perf veth-bw`, same run).
     */
    public static final int TX_SLOTS = 128;

    /**
     * Flushes of frames up to this size leave by sendmmsg(2) instead of the TX ring (see
     * {@link AfPacketOptions#copySendMax}): ACKs, small messages, MTU 1024 traffic. 4 KiB frames keep the ring.
     * {@code -Durdma.copySendMax=0} turns it off (to compare).
     */
    public static final int COPY_SEND_MAX = Integer.getInteger("urdma.copySendMax", 2048);

    /**
     * Frames the V2 RX ring holds: a NIC's usual RX ring (mlx5's default is 1024 descriptors). Not more: the ring's
     * head walks through all of it, and at 8192 frames (16 MiB) every frame the kernel wrote and the engine read was
     * a cache and TLB miss on both sides. RC ping-pong over veth, same run: 2.56-2.81 us per hop with 16 MiB, 2.20-2.28
     * with 1-2 MiB; 64 KiB write-bw / raw blast 0.65-0.70 with 16 MiB, 0.82-0.84 with 4 MiB (no drops).
     * {@code -Durdma.rxFrames=N} changes it (to compare).
     */
    public static final int RX_FRAMES = Integer.getInteger("urdma.rxFrames", 1024);

    /** V2 ring blocks: small, so the ring's size follows the frame count closely. */
    private static final int RX_BLOCK = 64 << 10;

    /**
     * Opens an AF_PACKET socket on {@code interfaceName} in the calling thread's network namespace (all
     * EtherTypes: RDMA frames and ARP share it; the kernel's own traffic is counted and skipped).
     *
     * @param rx V2 for latency (per-frame hand-over), V3 for throughput (per-block)
     */
    public static AfPacketLink open(String interfaceName, EthernetLinkConfig config, AfPacketOptions.Version rx) {
        int mtu = org.urdma.nativeio.NetInterface.lookup(interfaceName).mtu();
        // frames hold MTU + tag + TPACKET header room
        int frame = Math.max(2048, (mtu + 18 + 128 + 15) & ~15);
        AfPacketOptions o = AfPacketOptions.forMtu(mtu).protocol(LinuxConstants.ETH_P_ALL).version(rx);
        if (rx == AfPacketOptions.Version.V2) {
            int block = Math.max(RX_BLOCK, Integer.highestOneBit(frame - 1) << 1);
            int perBlock = block / frame;
            o.rxRing(block, Math.max(1, (RX_FRAMES + perBlock - 1) / perBlock), frame, 1);
        } else {
            // V3 fills whole blocks before it hands them over: 16 of 1 MiB, ~2000 jumbo frames
            o.rxRing(1 << 20, 16, frame, 1);
        }
        // TX: a send buffer of 4 MiB lets one syscall take a whole batch of jumbo frames (the default ~200 KiB
        // stops after ~50 4-KiB frames)
        o.txSlots(TX_SLOTS).sendBuffer(4 << 20).copySendMax(COPY_SEND_MAX);
        return open(interfaceName, config, o);
    }

    /** Opens with explicit socket options (ring geometry, qdisc bypass…); the protocol should be ETH_P_ALL. */
    public static AfPacketLink open(String interfaceName, EthernetLinkConfig config, AfPacketOptions options) {
        AfPacketSocket s = AfPacketSocket.open(interfaceName, options);
        try {
            return new AfPacketLink(s, config, interfaceSpeedBps(interfaceName), options.rxRingFrames());
        } catch (RuntimeException e) {
            s.close();
            throw e;
        }
    }

    @Override
    public org.urdma.verbs.Gid gid(int index) {
        return datapath().gids().gid(index);
    }

    public EthernetDatapath datapath() {
        return datapath;
    }

    public LinkCounters counters() {
        return counters;
    }

    /** The group MAC passes both the interface's filter (a real NIC's, or a bridge's) and the datapath's. */
    @Override
    public void joinMulticast(long mac) {
        socket.joinMulticast(mac);
        datapath.joinMulticast(mac);
    }

    @Override
    public void leaveMulticast(long mac) {
        datapath.leaveMulticast(mac);
        socket.leaveMulticast(mac);
    }

    public AfPacketSocket socket() {
        return socket;
    }

    @Override
    public int maxPayload() {
        return maxPayload;
    }

    @Override
    public TxPacket claim(int opcode, int payloadLength, Route route, long now) {
        if (!datapath.mayStart(route, now)) return null; // its priority is paused (PFC/PAUSE)
        // the frame's length picks the slot: a short frame may leave by sendmmsg (AfPacketOptions.copySendMax)
        int len = datapath.fit(opcode, payloadLength, txMax);
        if (len < 0) {
            claimedSlot = -1;
            return datapath.begin(scratch, 0).discard(); // cannot be framed here: counted, dropped on commit
        }
        int slot = socket.txAcquire(len);
        if (slot < 0) {
            flushNow();
            slot = socket.txAcquire(len);
            if (slot < 0) {
                counters.txBackPressure++;
                return null;
            }
        }
        claimedSlot = slot;
        txSlot.wrap(socket.txDataAddress(slot), len);
        return datapath.begin(txSlot, 0);
    }

    @Override
    public void commit(TxPacket packet, Route route, long now) {
        if (packet.discarded()) return;
        int len = datapath.end(packet, route, now);
        socket.txCommit(claimedSlot, len);
        if (++unflushed >= flushBatch) flushNow();
    }

    /** ARP and other control frames: one copy into a slot, sent at once. */
    private boolean sendRaw(DirectBuffer frame, int offset, int length) {
        if (length > txMax) return false;
        int slot = socket.txAcquire(length);
        if (slot < 0) return false;
        txView.wrap(socket.txDataAddress(slot), length);
        txView.putBytes(0, frame, offset, length);
        socket.txCommit(slot, length);
        datapath.sentRaw(txView, 0, length, now);
        unflushed++;
        flushNow();
        return true;
    }

    @Override
    public int flush(long now) {
        this.now = now;
        int work = datapath.arp().poll(now);
        datapath.poll(now);
        // a flush the kernel refused (socket buffer full) is no work: counted as work, it kept the engine from ever
        // sleeping, and the idle strategy waits for room (POLLOUT) instead
        if (flushNow()) work++;
        return work;
    }

    /** Hands the queued frames to the kernel; true if it took any. */
    private boolean flushNow() {
        // the socket knows what waits: a count kept here drifted (a copy slot's acquire sends the ring's frames first)
        // and, stuck above zero, made every pass a send(2) that had nothing to send
        if (!socket.txPending()) return false;
        long rc = socket.flush();
        unflushed = 0;
        if (rc < 0) {
            counters.txErrors++; // e.g. ENETDOWN: the kernel dropped what it could not send
        } else if (rc == 0) {
            counters.txFlushRetries++; // device or socket buffer busy: the slots stay queued, retried on the next pass
        } else {
            counters.txFlushes++;
            // the kernel stops at a full socket send buffer and returns what it took: the rest waits for the next pass
            if (socket.txPending()) counters.txFlushRetries++;
        }
        return rc > 0;
    }

    @Override
    public int receive(long now, PacketSink sink, int limit) {
        // a call walks at most one lap of the RX ring, so it is bounded even though it ignores limit
        this.now = now;
        this.sink = sink;
        return socket.receive(onFrame);
    }

    private void onFrame(RxFrame f) {
        long base = f.buffer().address();
        if (base != rxBase) {
            rxView.wrap(base, Math.toIntExact(f.buffer().byteSize()));
            rxBase = base;
        }
        if (f.losing()) counters.rxRingLosses++;
        datapath.onFrame(rxView, (int) f.offset(), f.length(), f.wireLength(), f.vlanValid() ? f.vlanTci() & 0xFFFF : -1, now, sink);
        if (!sink.takesMore()) socket.endBurst();
    }

    @Override
    public long nextEventTime() {
        return datapath.nextEventTime();
    }

    /** The kernel's speed of the interface in bit/s (in the calling thread's namespace), or 0 when it reports none. */
    static long interfaceSpeedBps(String name) {
        long mbps = org.urdma.nativeio.NetInterface.speedMbps(name);
        return mbps > 0 ? mbps * 1_000_000L : 0;
    }

    /** The kernel's PACKET_STATISTICS for this socket (frames it handed to the RX ring, frames it dropped: ring full). */
    public org.urdma.nativeio.PacketStatistics kernelStatistics() {
        return socket.statistics();
    }

    /** Waits up to {@code timeoutMs} for a received frame (for drivers that park instead of spinning). */
    public boolean awaitFrames(int timeoutMs) {
        return socket.pollIn(timeoutMs);
    }

    /**
     * An idle strategy for an engine thread whose work comes from this link (e.g. a passive side that only answers):
     * after {@code spins} empty passes it sleeps in poll(2) on the socket until a frame arrives or {@code timeoutMs}
     * passes (timers and posted work wait that long at most), instead of yielding and parking by the microsecond —
     * the kernel wakes it with the frame, as it wakes a raw-socket reader.
     */
    public org.agrona.concurrent.IdleStrategy pollIdleStrategy(int spins, int timeoutMs) {
        return pollIdleStrategy(spins, timeoutMs, () -> Long.MAX_VALUE);
    }

    /** An idle sleep shorter than this is spun instead (a wake-up costs a few microseconds of CPU). */
    static final long MIN_SLEEP_NANOS = 10_000;
    /** How long before the engine's next deadline an idle sleep ends (the wake-up's own latency). */
    static final long WAKE_EARLY_NANOS = 5_000;
    /** Timer slack of a thread that sleeps here: the kernel's 50 us default would defer every paced wake-up by that. */
    static final long TIMER_SLACK_NANOS = 1_000;

    /**
     * As {@link #pollIdleStrategy(int, int)}, but it never sleeps into the engine's next deadline: it sleeps in ppoll(2)
     * (nanosecond timeout) until a frame arrives or {@link #WAKE_EARLY_NANOS} before {@code nextEventNanos}
     * (System.nanoTime() of the device's next paced send, timer or pause end; called on the idle strategy's thread,
     * which with an inline driver may not hold the engine: see {@code SoftDevice.nextEventTimeOr}), at most
     * {@code timeoutMs}, and spins only when that is under {@link #MIN_SLEEP_NANOS}. A sleep of a whole millisecond per
     * paced packet held a 1 Gbit/s rate limit to ~40 Mbit/s; spinning whenever a deadline was under 1 ms away (always,
     * while a QP paces or a SACK timer runs) kept a 1 Gbit/s sender and receiver at a core each, and on two cores they
     * and the real-time switch between them took turns to stall.
     */
    public org.agrona.concurrent.IdleStrategy pollIdleStrategy(int spins, int timeoutMs, java.util.function.LongSupplier nextEventNanos) {
        if (spins < 0 || timeoutMs < 0) throw new IllegalArgumentException("spins and timeoutMs: must be >= 0");
        long maxSleepNanos = timeoutMs * 1_000_000L;
        return new org.agrona.concurrent.IdleStrategy() {
            private int idle;
            /** The thread whose timer slack was lowered (set on the first sleep, from the sleeping thread). */
            private Thread slackSet;

            @Override
            public void idle(int workCount) {
                if (workCount > 0) {
                    idle = 0;
                } else {
                    idle();
                }
            }

            @Override
            public void idle() {
                if (idle++ < spins) {
                    Thread.onSpinWait();
                    return;
                }
                long sleep = Math.min(maxSleepNanos, nextEventNanos.getAsLong() - System.nanoTime() - WAKE_EARLY_NANOS);
                if (sleep < MIN_SLEEP_NANOS) {
                    Thread.onSpinWait();
                    return;
                }
                Thread t = Thread.currentThread();
                if (slackSet != t) {
                    org.urdma.nativeio.Libc.timerSlack(TIMER_SLACK_NANOS);
                    slackSet = t;
                }
                socket.pollNanos(socket.txPending(), sleep);
                idle = 0;
            }

            @Override
            public void reset() {
                idle = 0;
            }

            @Override
            public String alias() {
                return "poll";
            }
        };
    }

    @Override
    public void close() {
        datapath.closeCapture();
        socket.close();
    }

    @Override
    public String toString() {
        return "AfPacketLink[" + socket + ", " + datapath.config().framing().cliName() + ", maxPayload " + maxPayload + "]";
    }
}
