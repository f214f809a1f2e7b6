package org.urdma.switchemu.core;

import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;
import org.urdma.switchemu.frame.FrameView;
import org.urdma.switchemu.frame.Mac;
import org.urdma.switchemu.frame.PortFormat;
import org.urdma.transport.wire.Icrc;
import org.urdma.transport.wire.IntStack;
import org.urdma.transport.wire.Ipv4Header;
import org.urdma.transport.wire.OpcodeTable;
import org.urdma.transport.wire.MacControlFrame;

import java.nio.ByteBuffer;
import java.util.random.RandomGenerator;

/**
 * The switch as a pure state machine: frames in with {@link #onFrame}, time advanced with
 * {@link #poll}, frames out through a {@link Transmitter}. It never reads a clock, sleeps or starts a
 * thread; randomness (ECN marking) comes from the generator it is given. A driver (real-time or
 * simulated) calls {@code poll(now)} after every input and at the time the previous poll returned.
 *
 * <p>Pipeline: parse → filter reserved DAs / consume PFC and PAUSE → learn SA → classify → look up DA
 * (flood unknown and group; a routed switch instead takes the DA's route and one of its equal-cost ports by flow
 * hash, dropping what it has no route for) → MMU admission → [optional VOQ + iSLIP crossbar] → egress queue (8 per
 * port) → SP + DWRR scheduler, skipping paused priorities → ECN (RED) at dequeue → serialization at the
 * port rate. Pending PFC frames go out first. A PFC watchdog guards every lossless queue. Drops are
 * counted on the ingress port. Steady state allocates nothing.
 */
public final class SwitchCore {
    /** Receives each frame as it starts transmission; the buffer is valid only during the call. */
    @FunctionalInterface
    public interface Transmitter {
        void transmit(int port, DirectBuffer buffer, int offset, int length, long txStartNs, long txEndNs);
    }

    /**
     * A transmitter that lends the core the memory a frame goes to (a TX ring slot), so a frame is copied
     * once, from the switch buffer straight into it. {@link #claim} returning null falls back to
     * {@link #transmit} (PFC frames always use it).
     */
    public interface SlotTransmitter extends Transmitter {
        /** Memory for a frame of {@code length} bytes on {@code port}, written at {@link #claimedOffset()}; or null. */
        MutableDirectBuffer claim(int port, int length);

        int claimedOffset();

        /** The claimed memory holds the frame: send it. */
        void commit(int port, int length, long txStartNs, long txEndNs);

        /** As {@link #commit(int, int, long, long)} for a frame that takes {@code wireLength} bytes on the wire. */
        default void commit(int port, int length, int wireLength, long txStartNs, long txEndNs) {
            commit(port, length, txStartNs, txEndNs);
        }
    }

    /** Hears this switch assert and lift XOFF towards a peer (PFC telemetry); called on the switch's thread. */
    public interface PfcObserver {
        /** XOFF on (port, priority) from {@code now}: the ingress queue went over its threshold. */
        void onXoff(int port, int priority, long now);

        /** XON on (port, priority) at {@code now}: the ingress queue may fill again. */
        void onXon(int port, int priority, long now);
    }

    private static final PfcObserver NO_OBSERVER = new PfcObserver() {
        @Override
        public void onXoff(int port, int priority, long now) {
        }

        @Override
        public void onXon(int port, int priority, long now) {
        }
    };

    private static final int NONE = CellPool.NONE;
    private static final int ROCE_PORT = 4791;
    private static final int SERVABLE_WALK = 64;
    private static final long NEVER = Long.MIN_VALUE;

    private final SwitchConfig config;
    private final PortConfig[] ports;
    private final int portCount;
    private final Transmitter transmitter;
    private final SlotTransmitter slots;
    private final RandomGenerator random;
    private final FrameView view = new FrameView();
    private final MacTable macTable;
    private final RouteTable routes;
    private final CellPool pool;
    private final Mmu mmu;
    private final PortCounters[] counters;
    private boolean maskedEntries;

    private final int[] queueHead;
    private final int[] queueTail;
    private final int[] queueFrames;
    private final long[] queueBytes;
    // exact times are ns + rem/rate of the port's rate (0 <= rem < rate): no rounding error accumulates
    private final long[] pausedUntil;
    private final long[] pausedRem;
    private final long[] xoffRefreshAt;
    private final long[] refreshNs;

    private final long[] busyUntil;
    private final long[] busyRem;
    private final int[] pendingXoff;
    private final int[] pendingXon;

    private final int[] dwrrCurrent;
    private final boolean[] dwrrFresh;
    private final long[] deficit;
    /** Frames queued per port (all eight queues). */
    private final int[] portFrames;
    /** Per port, a bit for each of its eight queues that holds frames. */
    private final int[] occupiedQueues;
    /** Picks on a port since it was last non-empty: their effect on the DWRR state is applied at the next real pick. */
    private final long[] emptyPicks;

    // A poll visits only the ports these sets hold; what it would do to the others is nothing, except an empty idle
    // port's pick, which is counted from the rounds of the transmit loop (see markWork).
    /** Ports with frames queued or a PFC frame to send. */
    private final PortSet withWork;
    /** Ports whose ingress has XOFF in force on some lossless priority (bits: pausedPriorities). */
    private final PortSet pausing;
    private final int[] pausedPriorities;
    /** Ports whose watchdog is timing a stall or has a storm declared. */
    private final PortSet watched;
    /** Empty ports still sending their last frame: their skipped picks start once they are free. */
    private final PortSet draining;
    /** For an empty free port, the transmit-loop round after which its skipped picks are counted; else -1. */
    private final long[] idleFromRound;
    /** Transmit-loop rounds run so far (every poll runs one or more). */
    private long rounds;
    /** The port the transmit loop is serving, or MAX_VALUE outside the loop. */
    private int visiting = Integer.MAX_VALUE;

    private final long[] stallSince;
    private final boolean[] storm;
    private final long[] stormStart;
    private final long[] lastPauseRx;

    private final Crossbar crossbar;
    private final long crossbarEgressBytes;
    private final Crossbar.Outputs outputs;

    private final UnsafeBuffer txBuffer;
    private final int[] pfcTimes = new int[8];
    private PfcObserver pfcObserver = NO_OBSERVER;
    /** The time of the input or poll being handled, for the observer of an XON that a release makes. */
    private long clock;

    public SwitchCore(SwitchConfig config, Transmitter transmitter, RandomGenerator random) {
        config.validate();
        this.config = config;
        this.ports = config.ports.toArray(new PortConfig[0]);
        this.portCount = ports.length;
        this.transmitter = transmitter;
        this.slots = transmitter instanceof SlotTransmitter st ? st : null;
        this.random = random;
        this.macTable = new MacTable(config.macTableSize, config.macAgingNs);
        this.routes = config.routes;
        long cells = 2 * ((config.bufferBytes + config.cellBytes - 1) / config.cellBytes) + 2L * config.maxFrameBytes / config.cellBytes;
        this.pool = new CellPool(Math.toIntExact(cells), config.cellBytes, config.packetMemoryOnDemand);
        this.mmu = new Mmu(config);
        this.counters = new PortCounters[portCount];
        int queues = portCount * 8;
        queueHead = new int[queues];
        queueTail = new int[queues];
        queueFrames = new int[queues];
        queueBytes = new long[queues];
        pausedUntil = new long[queues];
        pausedRem = new long[queues];
        xoffRefreshAt = new long[queues];
        refreshNs = new long[portCount];
        busyUntil = new long[portCount];
        busyRem = new long[portCount];
        pendingXoff = new int[portCount];
        pendingXon = new int[portCount];
        dwrrCurrent = new int[portCount];
        dwrrFresh = new boolean[portCount];
        deficit = new long[queues];
        portFrames = new int[portCount];
        occupiedQueues = new int[portCount];
        emptyPicks = new long[portCount];
        withWork = new PortSet(portCount);
        pausing = new PortSet(portCount);
        pausedPriorities = new int[portCount];
        watched = new PortSet(portCount);
        draining = new PortSet(portCount);
        idleFromRound = new long[portCount];
        stallSince = new long[queues];
        storm = new boolean[queues];
        stormStart = new long[queues];
        lastPauseRx = new long[queues];
        for (int i = 0; i < queues; i++) {
            queueHead[i] = NONE;
            queueTail[i] = NONE;
            pausedUntil[i] = NEVER;
            stallSince[i] = NEVER;
            lastPauseRx[i] = NEVER;
        }
        for (int p = 0; p < portCount; p++) {
            counters[p] = new PortCounters();
            busyUntil[p] = NEVER;
            dwrrFresh[p] = true;
            refreshNs[p] = Math.max(1, MacControlFrame.quantaToNanos(config.pauseQuanta, ports[p].rateBps) / 2);
        }
        this.txBuffer = new UnsafeBuffer(ByteBuffer.allocateDirect(config.maxFrameBytes));
        if (config.crossbarIterations > 0) {
            long fastest = 0;
            for (PortConfig p : ports) {
                fastest = Math.max(fastest, p.rateBps);
            }
            // default slot: exactly one 1518-byte frame's wire time at the fastest port; a match moves
            // that many wire bytes (speedup 1)
            long slotNum = config.crossbarSlotNs > 0 ? config.crossbarSlotNs : wireBits(1518) * 1_000_000_000L;
            long slotDen = config.crossbarSlotNs > 0 ? 1 : fastest;
            long slotBytes = config.crossbarSlotNs > 0
                ? Math.max(1, config.crossbarSlotNs * fastest / 8_000_000_000L) : wireBits(1518) / 8;
            this.crossbar = new Crossbar(portCount, config.crossbarIterations, slotNum, slotDen, slotBytes,
                config.wireOverheadBytes, pool);
            this.crossbarEgressBytes = config.crossbarEgressBytes > 0 ? config.crossbarEgressBytes : 2L * config.maxFrameBytes;
            this.outputs = new Crossbar.Outputs() {
                @Override
                public boolean hasRoom(int out, int priority) {
                    return queueBytes[out * 8 + priority] < crossbarEgressBytes;
                }

                @Override
                public void accept(int out, int priority, int handle) {
                    appendEgress(out * 8 + priority, handle);
                }
            };
        } else {
            this.crossbar = null;
            this.crossbarEgressBytes = 0;
            this.outputs = null;
        }
    }

    public int portCount() {
        return portCount;
    }

    /** The port's line rate, bit/s. */
    public long portRateBps(int port) {
        return ports[port].rateBps;
    }

    public PortCounters counters(int port) {
        return counters[port];
    }

    public MacTable macTable() {
        return macTable;
    }

    /** Bytes waiting in an egress queue (with a crossbar: in the output queue, not the VOQs). */
    public long queueBytes(int port, int priority) {
        return queueBytes[port * 8 + priority];
    }

    /** Bytes in the virtual output queue (in, out, priority); 0 without a crossbar. */
    public long voqBytes(int in, int out, int priority) {
        return crossbar == null ? 0 : crossbar.voqBytes(in, out, priority);
    }

    /** Crossbar slots run and frames moved across it (0 without a crossbar). */
    public long crossbarSlots() {
        return crossbar == null ? 0 : crossbar.slots();
    }

    public long crossbarTransfers() {
        return crossbar == null ? 0 : crossbar.transfers();
    }

    /** Lossless bytes held for an ingress (port, priority) in the MMU (reserve + shared + headroom). */
    public long ingressBytes(int port, int priority) {
        int idx = port * 8 + priority;
        return mmu.ingressBytes[idx] + mmu.headroomBytes[idx];
    }

    public long bufferUsed() {
        return mmu.totalUsed();
    }

    /** Whether this switch has XOFF in force towards the peer on (port, priority). */
    public boolean isPausing(int port, int priority) {
        return mmu.paused[port * 8 + priority];
    }

    /** Whether the PFC watchdog has a storm declared on the egress queue (port, priority). */
    public boolean inStorm(int port, int priority) {
        return storm[port * 8 + priority];
    }

    /** Who hears XOFF and XON (one observer; null: none). */
    public void observePfc(PfcObserver observer) {
        this.pfcObserver = observer == null ? NO_OBSERVER : observer;
    }

    public void addStaticMac(long mac, int port) {
        if (port < 0 || port >= portCount) {
            throw new IllegalArgumentException("static MAC port must be 0.." + (portCount - 1) + ", was " + port);
        }
        macTable.addStatic(mac, port);
    }

    /** Serialization time of a frame at a rate, wire overhead included, in ns (rounded up). */
    public long serializationNs(int frameBytes, long rateBps) {
        return Math.ceilDiv(wireBits(frameBytes) * 1_000_000_000L, rateBps);
    }

    private long wireBits(int frameBytes) {
        return (long) (Math.max(frameBytes, 60) + config.wireOverheadBytes) * 8L;
    }

    /** First whole ns at or after the exact port time ns + rem/rate. */
    private static long ceil(long ns, long rem) {
        return rem == 0 ? ns : ns + 1;
    }

    /** Port busy from exact (startNs + startRem/rate) for the frame: busy-until exact, in ns + remainder. */
    private void serialize(int port, long startNs, long startRem, int frameBytes) {
        long rate = ports[port].rateBps;
        long t = wireBits(frameBytes) * 1_000_000_000L;
        long rem = startRem + t % rate;
        long ns = startNs + t / rate;
        if (rem >= rate) {
            rem -= rate;
            ns++;
        }
        busyUntil[port] = ns;
        busyRem[port] = rem;
    }

    // ---------------------------------------------------------------- ingress

    /**
     * A whole frame has been received on {@code inPort}; {@code now} is the time of its last bit.
     * Malformed input is counted and dropped, never thrown.
     */
    public void onFrame(int inPort, DirectBuffer buffer, int offset, int length, long now) {
        onFrame(inPort, buffer, offset, length, length, now);
    }

    /**
     * As {@link #onFrame(int, DirectBuffer, int, int, long)} for a frame that takes {@code wireLength} bytes on the
     * wire though it holds {@code length} (a simulated frame whose payload is described, not carried): buffers,
     * queues, schedulers and serialization count the wire length, the switch stores and sends the bytes it holds.
     */
    public void onFrame(int inPort, DirectBuffer buffer, int offset, int length, int wireLength, long now) {
        clock = now;
        PortCounters c = counters[inPort];
        PortConfig pc = ports[inPort];
        c.rxFrames++;
        c.rxBytes += wireLength;
        if (wireLength > config.maxFrameBytes || !view.wrap(buffer, offset, length, pc.format)) {
            c.drops[DropReason.MALFORMED.ordinal()]++;
            return;
        }
        long da = view.destination();
        if (Mac.isReservedLinkLocal(da)) {
            if (da == Mac.MAC_CONTROL && MacControlFrame.isMacControl(buffer, offset, length)) {
                onMacControl(inPort, buffer, offset, length, now);
            } else {
                c.drops[DropReason.RESERVED_DA.ordinal()]++;
            }
            return;
        }
        int priority = classify(pc);
        int ipv4 = view.ipv4Offset();
        if (routes != null) {
            route(inPort, priority, buffer, offset, length, wireLength, ipv4, da, now);
            return;
        }
        learn(inPort, pc.format, now);
        if (Mac.isGroup(da)) {
            flood(inPort, priority, buffer, offset, length, wireLength, ipv4, now);
            return;
        }
        int out = macTable.lookup(da, now);
        if (out == MacTable.MISS && maskedEntries) {
            out = macTable.lookup(da & Mac.LOW40, now);
        }
        if (out == MacTable.MISS) {
            flood(inPort, priority, buffer, offset, length, wireLength, ipv4, now);
        } else if (out == inPort) {
            c.drops[DropReason.SAME_PORT.ordinal()]++;
        } else {
            enqueue(inPort, out, priority, buffer, offset, length, wireLength, ipv4, now);
        }
    }

    /** Routed forwarding: the destination's port group, one port of it by flow hash (or at random when spraying). */
    private void route(int inPort, int priority, DirectBuffer buffer, int offset, int length, int wireLength, int ipv4,
                       long da, long now) {
        int group = Mac.isGroup(da) ? arpTarget(da, buffer, offset, length) : routes.group(da);
        if (group == RouteTable.NO_ROUTE) {
            counters[inPort].drops[DropReason.NO_ROUTE.ordinal()]++;
            return;
        }
        int n = routes.groupSize(group);
        int pick = 0;
        if (n > 1) {
            pick = config.spray ? random.nextInt(n) : EcmpHash.choose(EcmpHash.of(view, buffer, offset, length, config.ecmpSeed), n);
        }
        int out = routes.port(group, pick);
        if (out == inPort) {
            counters[inPort].drops[DropReason.SAME_PORT.ordinal()]++;
        } else {
            enqueue(inPort, out, priority, buffer, offset, length, wireLength, ipv4, now);
        }
    }

    /**
     * A broadcast ARP request goes where its target address is routed, as the one frame a routed fabric does not flood;
     * any other group address has no route.
     */
    private int arpTarget(long da, DirectBuffer buffer, int offset, int length) {
        int arp = view.payloadOffset();
        if (da != Mac.BROADCAST || view.etherType() != FrameView.ETHERTYPE_ARP || length < arp + 28) {
            return RouteTable.NO_ROUTE;
        }
        return routes.groupOfIpv4(buffer.getInt(offset + arp + 24, java.nio.ByteOrder.BIG_ENDIAN));
    }

    private void learn(int inPort, PortFormat format, long now) {
        boolean afh = view.etherType() == FrameView.ETHERTYPE_AFH;
        long sa = view.source();
        switch (format) {
            case AFH_LITE:
                return;
            case AFH_GEN2:
                if (afh) {
                    return;
                }
                break;
            case AFH_GEN1:
                if (afh) {
                    // byte 0 of the AFH1 "SA" is the traffic class: learn the 40-bit source id
                    macTable.learn(sa & Mac.LOW40, inPort, now);
                    maskedEntries = true;
                    return;
                }
                break;
            default:
                break;
        }
        if (!Mac.isGroup(sa)) {
            macTable.learn(sa, inPort, now);
        }
    }

    private int classify(PortConfig pc) {
        if (view.isLite()) {
            return pc.defaultPriority;
        }
        switch (pc.classify) {
            case DSCP:
                if (view.isIpv4()) {
                    return pc.dscpToPriority[view.dscp()];
                }
                return view.hasVlan() ? view.pcp() : pc.defaultPriority;
            case PCP:
                return view.hasVlan() ? view.pcp() : pc.defaultPriority;
            default:
                return pc.defaultPriority;
        }
    }

    private void flood(int inPort, int priority, DirectBuffer buffer, int offset, int length, int wireLength, int ipv4,
                       long now) {
        for (int out = 0; out < portCount; out++) {
            if (out != inPort) {
                enqueue(inPort, out, priority, buffer, offset, length, wireLength, ipv4, now);
            }
        }
    }

    private void enqueue(int inPort, int out, int priority, DirectBuffer buffer, int offset, int length, int wireLength,
                         int ipv4, long now) {
        int idx = out * 8 + priority;
        int inIdx = inPort * 8 + priority;
        PortCounters c = counters[inPort];
        if (storm[idx] && config.watchdogAction == WatchdogAction.DROP) {
            c.drops[DropReason.WATCHDOG.ordinal()]++;
            return;
        }
        boolean lossless = (ports[inPort].pfcMask & (1 << priority)) != 0;
        DropReason reason = mmu.admit(inIdx, idx, inPort, wireLength, lossless);
        if (reason != null) {
            c.drops[reason.ordinal()]++;
            return;
        }
        int handle = pool.store(buffer, offset, length);
        if (handle == NONE) {
            c.drops[DropReason.BUFFER_FULL.ordinal()]++;
            return;
        }
        pool.frameWire[handle] = wireLength;
        mmu.add(inIdx, idx, wireLength, lossless);
        pool.frameInPort[handle] = inPort;
        pool.framePriority[handle] = priority;
        pool.frameIpv4[handle] = ipv4;
        pool.frameEligible[handle] = eligibleTime(inPort, out, wireLength, now);
        if (crossbar != null) {
            crossbar.add(inPort, out, priority, handle);
            highWater(idx);
        } else {
            appendEgress(idx, handle);
        }
        if (lossless && mmu.shouldPause(inIdx)) {
            mmu.paused[inIdx] = true;
            pausedPriorities[inPort] |= 1 << priority;
            pausing.add(inPort);
            pfcObserver.onXoff(inPort, priority, now);
            pendingXoff[inPort] |= 1 << priority;
            pendingXon[inPort] &= ~(1 << priority);
            markWork(inPort);
            xoffRefreshAt[inIdx] = now + refreshNs[inPort];
        }
    }

    private void appendEgress(int idx, int handle) {
        pool.frameNext[handle] = NONE;
        if (queueTail[idx] == NONE) {
            queueHead[idx] = handle;
        } else {
            pool.frameNext[queueTail[idx]] = handle;
        }
        queueTail[idx] = handle;
        queueFrames[idx]++;
        portFrames[idx >> 3]++;
        occupiedQueues[idx >> 3] |= 1 << (idx & 7);
        markWork(idx >> 3);
        queueBytes[idx] += pool.frameWire[handle];
        highWater(idx);
    }

    /** Bytes waiting for (out, priority): its output queue plus, with a crossbar, its VOQs. */
    private long depth(int idx) {
        return crossbar == null ? queueBytes[idx] : queueBytes[idx] + crossbar.bytesToOut[idx];
    }

    private void highWater(int idx) {
        long bytes = depth(idx);
        PortCounters oc = counters[idx >> 3];
        if (bytes > oc.queueHighWater[idx & 7]) {
            oc.queueHighWater[idx & 7] = bytes;
        }
    }

    /** Earliest time the frame may start leaving {@code out}: latency model of the forwarding mode. */
    private long eligibleTime(int in, int out, int length, long rxEnd) {
        if (config.forwarding == ForwardingMode.STORE_AND_FORWARD) {
            return rxEnd + config.pipelineDelayNs;
        }
        // rxEnd is the end of the frame's wire time (overhead included, as serialization counts it), so its
        // first bit came in wireBits earlier, and its header after preamble+SFD (8 B) + cutThroughBytes.
        // Both bounds are rounded up from their exact times.
        long inRate = ports[in].rateBps;
        long header = (8L + config.cutThroughBytes) * 8L;
        long beforeEnd = Math.max(0, wireBits(length) - header) * 1_000_000_000L / inRate;
        long noUnderrun = rxEnd + config.pipelineDelayNs - wireBits(length) * 1_000_000_000L / ports[out].rateBps;
        return Math.max(rxEnd + config.pipelineDelayNs - beforeEnd, noUnderrun);
    }

    private void onMacControl(int inPort, DirectBuffer buffer, int offset, int length, long now) {
        PortCounters c = counters[inPort];
        int opcode = MacControlFrame.opcode(buffer, offset);
        long rate = ports[inPort].rateBps;
        int base = inPort * 8;
        if (opcode == MacControlFrame.OPCODE_PFC) {
            if (!MacControlFrame.isPfc(buffer, offset, length)) {
                c.drops[DropReason.MALFORMED.ordinal()]++;
                return;
            }
            int enable = MacControlFrame.classEnable(buffer, offset);
            for (int p = 0; p < 8; p++) {
                if ((enable & (1 << p)) == 0) {
                    continue;
                }
                c.pfcRx[p]++;
                if ((ports[inPort].pfcMask & (1 << p)) != 0) {
                    pause(base + p, MacControlFrame.pfcQuanta(buffer, offset, p), rate, now);
                }
            }
        } else if (opcode == MacControlFrame.OPCODE_PAUSE) {
            int quanta = MacControlFrame.pauseQuanta(buffer, offset);
            c.pauseRx++;
            for (int p = 0; p < 8; p++) {
                pause(base + p, quanta, rate, now);
            }
        } else {
            c.drops[DropReason.RESERVED_DA.ordinal()]++;
        }
    }

    private void pause(int idx, int quanta, long rate, long now) {
        // XON: paused until now, so nothing queued behind it can claim an earlier start. Exact: a quantum
        // is 512 bit times, 1.28 ns at 400 Gbit/s
        long t = quanta * 512L * 1_000_000_000L;
        pausedUntil[idx] = now + t / rate;
        pausedRem[idx] = t % rate;
        if (quanta != 0) {
            lastPauseRx[idx] = now;
        }
    }

    // ---------------------------------------------------------------- time and egress

    /**
     * Does everything due at or before {@code now}: watchdog, XON/XOFF refresh, and starts a
     * transmission on every idle port that has a frame ready. Returns when it next needs a poll
     * ({@link Long#MAX_VALUE} if nothing is pending).
     */
    public long poll(long now) {
        clock = now;
        macTable.sweep(now, 8);
        for (int port = draining.next(0); port >= 0; port = draining.next(port + 1)) {
            if (ceil(busyUntil[port], busyRem[port]) <= now) {
                draining.remove(port);
                idleFromRound[port] = rounds;
            }
        }
        for (int port = PortSet.nextIn(withWork, pausing, watched, 0); port >= 0;
             port = PortSet.nextIn(withWork, pausing, watched, port + 1)) {
            if (config.watchdog) {
                watchdog(port, now);
            }
            if (pausing.contains(port)) {
                pfcState(port, now);
            }
        }
        if (crossbar != null) {
            crossbar.run(now, outputs);
        }
        boolean progress;
        do {
            progress = false;
            rounds++;
            for (int port = withWork.next(0); port >= 0; port = withWork.next(port + 1)) {
                visiting = port;
                if (ceil(busyUntil[port], busyRem[port]) <= now && transmitOne(port, now)) {
                    progress = true;
                    loseWorkIfDone(port, now);
                }
            }
            visiting = Integer.MAX_VALUE;
        } while (progress);
        long next = crossbar == null ? Long.MAX_VALUE : crossbar.deadline();
        for (int port = PortSet.nextIn(withWork, pausing, watched, 0); port >= 0;
             port = PortSet.nextIn(withWork, pausing, watched, port + 1)) {
            next = Math.min(next, deadline(port, now));
        }
        return next;
    }

    /**
     * The port has frames or a PFC frame to send from now on. If it was empty and free, the transmit loop's rounds
     * since then each made a pick on it that found nothing (the rounds before this one, and this one if the loop has
     * already served it): they are counted for {@link #pick} to apply.
     */
    private void markWork(int port) {
        if (withWork.contains(port)) {
            return;
        }
        if (idleFromRound[port] >= 0) {
            emptyPicks[port] += rounds - idleFromRound[port] - (port > visiting ? 1 : 0);
            idleFromRound[port] = -1;
        }
        draining.remove(port);
        withWork.add(port);
    }

    /** A port left with nothing to send waits for its last frame to leave, then counts the picks it skips. */
    private void loseWorkIfDone(int port, long now) {
        if (portFrames[port] != 0 || (pendingXoff[port] | pendingXon[port]) != 0) {
            return;
        }
        withWork.remove(port);
        if (ceil(busyUntil[port], busyRem[port]) <= now) {
            idleFromRound[port] = rounds;
        } else {
            draining.add(port);
        }
    }

    private void pfcState(int port, long now) {
        for (int bits = pausedPriorities[port]; bits != 0; bits &= bits - 1) {
            int p = Integer.numberOfTrailingZeros(bits);
            int idx = port * 8 + p;
            if (mmu.shouldResume(idx)) {
                resume(port, p, idx);
            } else if (xoffRefreshAt[idx] <= now) {
                pendingXoff[port] |= 1 << p;
                markWork(port);
                xoffRefreshAt[idx] = now + refreshNs[port];
            }
        }
    }

    private void resume(int port, int priority, int idx) {
        mmu.paused[idx] = false;
        pausedPriorities[port] &= ~(1 << priority);
        pausing.set(port, pausedPriorities[port] != 0);
        pfcObserver.onXon(port, priority, clock);
        pendingXon[port] |= 1 << priority;
        pendingXoff[port] &= ~(1 << priority);
        markWork(port);
    }

    private void watchdog(int port, long now) {
        int mask = ports[port].pfcMask;
        PortCounters c = counters[port];
        boolean timing = false;
        for (int bits = mask & 0xFF; bits != 0; bits &= bits - 1) {
            int p = Integer.numberOfTrailingZeros(bits);
            int idx = port * 8 + p;
            if (!storm[idx]) {
                boolean stalled = queueFrames[idx] > 0 && ceil(pausedUntil[idx], pausedRem[idx]) > now;
                if (!stalled) {
                    stallSince[idx] = NEVER;
                } else if (stallSince[idx] == NEVER) {
                    stallSince[idx] = now;
                } else if (now - stallSince[idx] >= config.watchdogDetectionNs) {
                    storm[idx] = true;
                    stormStart[idx] = now;
                    c.watchdogStorms[p]++;
                }
            } else if (now - Math.max(lastPauseRx[idx], stormStart[idx]) >= config.watchdogRestorationNs) {
                storm[idx] = false;
                stallSince[idx] = NEVER;
                c.watchdogRestores[p]++;
            }
            if (storm[idx] && config.watchdogAction == WatchdogAction.DROP) {
                flush(idx);
            }
            timing |= storm[idx] || stallSince[idx] != NEVER;
        }
        watched.set(port, timing);
        if (withWork.contains(port)) {
            loseWorkIfDone(port, now);
        }
    }

    private void flush(int idx) {
        while (queueFrames[idx] > 0) {
            dropWatchdog(dequeue(idx), idx);
        }
        if (crossbar != null) {
            for (int h = crossbar.takeAny(idx >> 3, idx & 7); h != NONE; h = crossbar.takeAny(idx >> 3, idx & 7)) {
                dropWatchdog(h, idx);
            }
        }
    }

    private void dropWatchdog(int handle, int outIdx) {
        counters[pool.frameInPort[handle]].drops[DropReason.WATCHDOG.ordinal()]++;
        released(handle, outIdx);
        pool.free(handle);
    }

    private boolean paused(int idx, long now) {
        return ceil(pausedUntil[idx], pausedRem[idx]) > now && !(storm[idx] && config.watchdogAction != WatchdogAction.ALERT);
    }

    private boolean ready(int idx, long now) {
        return queueFrames[idx] > 0 && pool.frameEligible[queueHead[idx]] <= now && !paused(idx, now);
    }

    /** Strict priority (7 first) over the SP queues, then DWRR over the others. -1 if nothing is ready. */
    private int pick(int port, long now) {
        PortConfig pc = ports[port];
        int base = port * 8;
        if (portFrames[port] == 0) {
            // never reached: a poll serves only ports with work (see markWork for the picks it skips)
            return -1;
        }
        if (emptyPicks[port] != 0) {
            // what the skipped picks of an empty port would have done (every deficit cleared, the DWRR pointer 17
            // steps on each), done once frames come
            for (int p = 0; p < 8; p++) {
                deficit[base + p] = 0;
            }
            dwrrCurrent[port] = (int) ((dwrrCurrent[port] + 17L * (emptyPicks[port] & 7)) & 7);
            dwrrFresh[port] = true;
            emptyPicks[port] = 0;
        }
        int occupied = occupiedQueues[port];
        int readyQueues = 0;
        for (int bits = occupied; bits != 0; bits &= bits - 1) {
            int p = Integer.numberOfTrailingZeros(bits);
            if (ready(base + p, now)) {
                readyQueues |= 1 << p;
            }
        }
        int strictReady = readyQueues & pc.strictMask;
        if (strictReady != 0) {
            return 31 - Integer.numberOfLeadingZeros(strictReady);
        }
        int dwrrReady = readyQueues & ~pc.strictMask;
        if (dwrrReady == 0) {
            // the walk below would step 17 times past queues none of which is ready: do what it does at once
            for (int bits = ~occupied & 0xFF; bits != 0; bits &= bits - 1) {
                deficit[base + Integer.numberOfTrailingZeros(bits)] = 0;
            }
            dwrrCurrent[port] = (dwrrCurrent[port] + 17) & 7;
            dwrrFresh[port] = true;
            return -1;
        }
        for (int i = 0; i < 17; i++) {
            int q = dwrrCurrent[port];
            int idx = base + q;
            if ((dwrrReady & (1 << q)) == 0) {
                if (queueFrames[idx] == 0) {
                    deficit[idx] = 0;
                }
                dwrrCurrent[port] = (q + 1) & 7;
                dwrrFresh[port] = true;
                continue;
            }
            if (dwrrFresh[port]) {
                deficit[idx] += (long) pc.weights[q] * config.maxFrameBytes;
                dwrrFresh[port] = false;
            }
            int length = pool.frameWire[queueHead[idx]];
            if (deficit[idx] >= length) {
                deficit[idx] -= length;
                return q;
            }
            dwrrCurrent[port] = (q + 1) & 7;
            dwrrFresh[port] = true;
        }
        return -1;
    }

    private int dequeue(int idx) {
        int handle = queueHead[idx];
        queueHead[idx] = pool.frameNext[handle];
        if (queueHead[idx] == NONE) {
            queueTail[idx] = NONE;
        }
        if (--queueFrames[idx] == 0) {
            occupiedQueues[idx >> 3] &= ~(1 << (idx & 7));
        }
        portFrames[idx >> 3]--;
        queueBytes[idx] -= pool.frameWire[handle];
        return handle;
    }

    /** MMU release of a dequeued frame, and XON upstream if its ingress queue may resume. */
    private void released(int handle, int outIdx) {
        int inPort = pool.frameInPort[handle];
        int priority = pool.framePriority[handle];
        int inIdx = inPort * 8 + priority;
        boolean lossless = (ports[inPort].pfcMask & (1 << priority)) != 0;
        mmu.remove(inIdx, outIdx, pool.frameWire[handle], lossless);
        if (mmu.shouldResume(inIdx)) {
            resume(inPort, priority, inIdx);
        }
    }

    private boolean transmitOne(int port, long now) {
        PortConfig pc = ports[port];
        PortCounters c = counters[port];
        int xoff = pendingXoff[port];
        int xon = pendingXon[port];
        if ((xoff | xon) != 0) {
            for (int p = 0; p < 8; p++) {
                pfcTimes[p] = (xoff & (1 << p)) != 0 ? config.pauseQuanta : 0;
                if (((xoff | xon) & (1 << p)) != 0) {
                    c.pfcTx[p]++;
                    if ((xon & (1 << p)) != 0) {
                        c.pfcXonTx[p]++;
                    }
                }
            }
            int length = MacControlFrame.putPfc(txBuffer, 0, pc.mac, xoff | xon, pfcTimes);
            c.pfcFramesTx++;
            pendingXoff[port] = 0;
            pendingXon[port] = 0;
            send(port, length, now);
            return true;
        }
        int priority = pick(port, now);
        if (priority < 0) {
            return false;
        }
        int idx = port * 8 + priority;
        int handle = dequeue(idx);
        // a cut-through frame may have started leaving before its last bit came in (the driver
        // reports arrival at the last bit); never before the port was free or the queue unpaused.
        // The start is exact: a frame sent back to back starts where the last one ended, to the bit.
        long start = busyUntil[port];
        long startRem = busyRem[port];
        long eligible = pool.frameEligible[handle];
        if (eligible > start) {
            start = eligible;
            startRem = 0;
        }
        if (pausedUntil[idx] > start || pausedUntil[idx] == start && pausedRem[idx] > startRem) {
            start = pausedUntil[idx];
            startRem = pausedRem[idx];
        }
        if (start > now || start == now && startRem > 0) {
            start = now;
            startRem = 0;
        }
        released(handle, idx);
        MutableDirectBuffer out = slots == null ? null : slots.claim(port, pool.frameLength[handle]);
        int at = out == null ? 0 : slots.claimedOffset();
        if (out == null) {
            out = txBuffer;
        }
        int length = pool.copyOut(handle, out, at);
        int wireLength = pool.frameWire[handle];
        int ipv4 = pool.frameIpv4[handle];
        pool.free(handle);
        if (ipv4 >= 0 && (pc.ecnMask & (1 << priority)) != 0 && shouldMark(pc, depth(idx))
            && FrameView.isEct(out.getByte(at + ipv4 + 1) & 0x3)) {
            Ipv4Header.ecn(out, at + ipv4, Ipv4Header.ECN_CE);
            c.ecnMarked++;
        }
        long txStart = ceil(start, startRem);
        if (ipv4 >= 0 && pc.intStamp) {
            stamp(port, out, at + ipv4, at + length, c.txBytes + wireLength, txStart);
        }
        serialize(port, start, startRem, wireLength);
        long txEnd = ceil(busyUntil[port], busyRem[port]);
        c.txFrames++;
        c.txBytes += wireLength;
        if (out != txBuffer) {
            slots.commit(port, length, wireLength, txStart, txEnd);
        } else {
            transmitter.transmit(port, txBuffer, 0, length, txStart, txEnd);
        }
        return true;
    }

    /**
     * HPCC's egress stamp: a RoCEv2 (IPv4) packet whose BTH announces an INT stack gets this port's hop, with the
     * bytes all its queues hold behind it, the bytes it has sent with this one, and the time this one starts leaving.
     * The stack is the UDP datagram's last bytes before the ICRC; a packet too short for one is left as it is.
     */
    private void stamp(int port, MutableDirectBuffer b, int ip, int frameEnd, long txBytes, long now) {
        if ((b.getByte(ip) & 0xFF) != 0x45 || b.getByte(ip + 9) != Ipv4Header.PROTO_UDP) {
            return;
        }
        int udp = ip + Ipv4Header.LENGTH;
        if (udp + 8 + 12 > frameEnd || u16(b, udp + 2) != ROCE_PORT || u16(b, udp + 6) == 0xFFFF) {
            return; // not RoCEv2 (PAXI Standard has UDP checksum 0xFFFF and no BTH)
        }
        int bth = udp + 8;
        if ((b.getByte(bth + 8) & OpcodeTable.RESV7_INT) == 0) {
            return;
        }
        int stack = udp + u16(b, udp + 4) - Icrc.LENGTH - IntStack.LENGTH;
        if (stack < bth + 12 || stack + IntStack.LENGTH > frameEnd) {
            return;
        }
        long queued = 0;
        for (int p = 0; p < 8; p++) {
            queued += servable(port * 8 + p, now);
        }
        if (IntStack.push(b, stack, ports[port].rateBps, queued, txBytes, now)) {
            counters[port].intStamped++;
        }
    }

    /**
     * Bytes of (port, priority) a real egress queue would hold at {@code now}: frames still in the forwarding pipeline
     * (not yet eligible) wait in this model's queue but not in a switch's, so they are left out. The walk from the
     * head stops after {@link #SERVABLE_WALK} frames; a queue that long counts whole (its pipeline share is noise).
     */
    private long servable(int idx, long now) {
        long bytes = 0;
        int h = queueHead[idx];
        for (int n = 0; h != NONE && pool.frameEligible[h] <= now; n++) {
            if (n == SERVABLE_WALK) {
                return depth(idx);
            }
            bytes += pool.frameWire[h];
            h = pool.frameNext[h];
        }
        return crossbar == null ? bytes : bytes + crossbar.bytesToOut[idx];
    }

    private static int u16(DirectBuffer b, int i) {
        return (b.getByte(i) & 0xFF) << 8 | (b.getByte(i + 1) & 0xFF);
    }

    /** RED on the egress queue depth left behind: never at or below kmin, always above kmax, linear to pmax between. */
    private boolean shouldMark(PortConfig pc, long depth) {
        if (depth > pc.kmaxBytes) {
            return true;
        }
        if (depth <= pc.kminBytes) {
            return false;
        }
        double p = pc.pmax * (double) (depth - pc.kminBytes) / (double) (pc.kmaxBytes - pc.kminBytes);
        return random.nextDouble() < p;
    }

    private void send(int port, int length, long now) {
        serialize(port, now, 0, length);
        long end = ceil(busyUntil[port], busyRem[port]);
        PortCounters c = counters[port];
        c.txFrames++;
        c.txBytes += length;
        transmitter.transmit(port, txBuffer, 0, length, now, end);
    }

    private long deadline(int port, long now) {
        int base = port * 8;
        long next = Long.MAX_VALUE;
        boolean work = (pendingXoff[port] | pendingXon[port]) != 0 || portFrames[port] > 0;
        if (work) {
            long busy = ceil(busyUntil[port], busyRem[port]);
            if (busy > now) {
                next = busy;
            } else {
                for (int bits = occupiedQueues[port]; bits != 0; bits &= bits - 1) {
                    int idx = base + Integer.numberOfTrailingZeros(bits);
                    long t = pool.frameEligible[queueHead[idx]];
                    if (paused(idx, now)) {
                        t = Math.max(t, ceil(pausedUntil[idx], pausedRem[idx]));
                    }
                    next = Math.min(next, Math.max(t, now + 1));
                }
            }
        }
        for (int bits = ports[port].pfcMask & 0xFF; bits != 0; bits &= bits - 1) {
            int idx = base + Integer.numberOfTrailingZeros(bits);
            if (mmu.paused[idx]) {
                next = Math.min(next, xoffRefreshAt[idx]);
            }
            if (config.watchdog) {
                if (storm[idx]) {
                    next = Math.min(next, Math.max(lastPauseRx[idx], stormStart[idx]) + config.watchdogRestorationNs);
                } else if (stallSince[idx] != NEVER) {
                    next = Math.min(next, stallSince[idx] + config.watchdogDetectionNs);
                }
            }
        }
        return next;
    }
}
