package org.urdma.switchemu.rt;

import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;
import org.agrona.concurrent.Agent;
import org.agrona.concurrent.NanoClock;
import org.agrona.concurrent.SystemNanoClock;
import org.agrona.concurrent.UnsafeBuffer;
import org.urdma.switchemu.capture.SwitchCapture;
import org.urdma.switchemu.core.SwitchConfig;
import org.urdma.switchemu.core.SwitchCounters;
import org.urdma.switchemu.core.SwitchCore;
import org.urdma.transport.impair.Impairment;
import org.urdma.transport.impair.ImpairmentConfig;
import org.urdma.transport.impair.PsnDropRule;
import org.urdma.transport.impair.PsnPattern;
import org.urdma.transport.impair.ReleaseHeap;
import org.urdma.switchemu.topo.Topology;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

/**
 * The real-time driver: one {@link SwitchCore} between {@link FramePort}s ({@link AfPacketPort} on the
 * veths of a switch namespace, or {@link InMemoryPort}), polled by a single thread (an Agrona
 * {@link Agent}, see {@link RtSwitchRunner}). The driver owns the clock ({@link NanoClock}); the core only
 * sees {@code now}.
 *
 * <p>Each {@link #doWork()} pass: drain every port (zero copy from an AF_PACKET RX ring; the core copies
 * the frame once into its cell buffer), release impairment-delayed frames, {@code core.poll(now)} when a
 * frame came in or the core's deadline passed (serialization at the port rate, pipeline delay, PFC
 * XOFF/XON and refresh, received PFC/PAUSE timers, the watchdog), and the core copies each frame it sends
 * from its cell buffer straight into the port's TX ring slot ({@link SwitchCore.SlotTransmitter}), flushed
 * in batches: one copy in, one copy out. Nothing is allocated per frame.
 *
 * <p>A received frame is dated by the kernel's receive timestamp of its ring slot (mapped from
 * CLOCK_REALTIME onto the driver's clock), kept within [the core's last time, now]: a frame that waited in
 * the ring while the thread slept or was descheduled gets its delay and serialization from when it came
 * in, and the clock is read once per pass and per 32 frames rather than per frame. With
 * {@link RtOptions.Idle#WAIT} the thread sleeps in {@code ppoll} on the ports between frames and wakes
 * shortly before its next deadline ({@link PortWaiter}).
 *
 * <p>Impairment per port and direction as in the simulator: ingress (frames from a host) before the
 * core, egress after serialization; copies with a later release time wait in a {@link ReleaseHeap}. A link's PSN
 * drop pattern ({@link PsnDropRule}) is checked first, in both directions.
 */
public final class RtSwitch implements Agent {
    /** A port: its name, the peer's name (or null), its I/O, impairment in and out (or null). */
    public record PortSpec(String name, String peer, FramePort io, ImpairmentConfig ingress, ImpairmentConfig egress) {
    }

    private final String name;
    private final SwitchCore core;
    private final RtPort[] ports;
    private final RtOptions options;
    private final NanoClock clock;
    private final long epochOffsetNs;
    private final UnsafeBuffer scratch;
    private final long spinWindowNs;
    private SwitchCapture capture;
    private SwitchCounters published;
    private long publishPeriodNs;
    private long nextPublish = Long.MIN_VALUE;
    /** The core's time: never runs backwards. */
    private long now;
    /** The clock at the start of this pass (re-read when a frame's stamp is later). */
    private long wall;
    private long nextDeadline = Long.MAX_VALUE;
    private long lastWorkNs;
    private static final long SPIN_AFTER_WORK_NS = 20_000;
    /** Longest sleep: a bound on how long a missed wake-up could hold a frame. */
    private static final long MAX_SLEEP_NS = 1_000_000;
    private final PortWaiter waiter;
    /** Kernel receive timestamps are usable: the driver runs on the system's monotonic clock. */
    private final boolean stamps;
    private long epochToMono;
    private long offsetUncertaintyNs;
    private long nextOffsetRefresh;
    private long nextPoll = Long.MIN_VALUE;
    private int sincePoll;
    private static final int POLL_EVERY = 32;
    private long startNs;
    private long lastNs;
    private boolean closed;

    public RtSwitch(String name, SwitchConfig config, List<PortSpec> specs, RtOptions options) {
        this(name, config, specs, options, new SystemNanoClock());
    }

    /** A switch over the given ports; they are closed with the switch ({@link #onClose()}). */
    public RtSwitch(String name, SwitchConfig config, List<PortSpec> specs, RtOptions options, NanoClock clock) {
        if (specs.size() != config.ports().size()) {
            throw new IllegalArgumentException("ports: " + specs.size() + " given for a switch configured with "
                + config.ports().size() + " ports");
        }
        this.name = name;
        this.options = options;
        this.clock = clock;
        this.now = clock.nanoTime();
        this.epochOffsetNs = System.currentTimeMillis() * 1_000_000L - now;
        this.spinWindowNs = options.spinWindowNs;
        this.core = new SwitchCore(config, new Output(), new SplittableRandom(options.seed));
        SplittableRandom seeds = new SplittableRandom(options.seed * 0x9E3779B97F4A7C15L + 1);
        this.ports = new RtPort[specs.size()];
        for (int i = 0; i < specs.size(); i++) {
            PortSpec s = specs.get(i);
            RtPort p = new RtPort(i, s.name(), s.peer(), s.io(), impairment(s.ingress(), seeds),
                impairment(s.egress(), seeds), options.delayLineBytes);
            p.receiver = (buffer, offset, length, arrival) -> onReceive(p, buffer, offset, length, arrival);
            ports[i] = p;
        }
        this.scratch = new UnsafeBuffer(ByteBuffer.allocateDirect(64 * 1024));
        int[] fds = new int[ports.length];
        for (int i = 0; i < ports.length; i++) {
            fds[i] = ports[i].io.readableFd();
        }
        this.waiter = new PortWaiter(fds);
        this.stamps = clock instanceof SystemNanoClock;
        if (stamps) {
            refreshEpochOffset();
        }
        if (options.pcapDir != null) {
            try {
                capture = new SwitchCapture(options.pcapDir, name, ports.length, epochOffsetNs);
            } catch (IOException e) {
                throw new UncheckedIOException("cannot write pcap files in " + options.pcapDir, e);
            }
        }
    }

    /**
     * A switch of a topology file with AF_PACKET ports on the interfaces {@link #portInterface(int)}, opened
     * in the calling thread's network namespace (where {@code urdma topo up} made them).
     */
    public static RtSwitch fromTopology(Topology topology, String switchName, RtOptions options) {
        SwitchConfig config = topology.switchConfig(switchName);
        List<PortSpec> specs = new ArrayList<>();
        try {
            for (Topology.Port p : topology.ports(switchName)) {
                Topology.Link l = p.link();
                boolean atA = l.a().equals(switchName);
                ImpairmentConfig out = atA ? l.aToB() : l.bToA();
                ImpairmentConfig in = atA ? l.bToA() : l.aToB();
                // as in the simulator: a direction is impaired once, at the switch it leaves, else the switch it enters
                if (topology.switches().containsKey(p.peer())) {
                    in = null;
                }
                if (!options.impair) {
                    in = null;
                    out = null;
                }
                String ifname = portInterface(p.port());
                specs.add(new PortSpec(ifname, p.peer(), AfPacketPort.open(ifname, options), in, out));
            }
            RtSwitch sw = new RtSwitch(switchName, config, specs, options);
            for (Topology.Port p : topology.ports(switchName)) {
                if (p.link().dropPsns() != null && options.impair) {
                    sw.dropPsns(p.port(), p.link().dropPsns(), !topology.switches().containsKey(p.peer()));
                }
            }
            return sw;
        } catch (RuntimeException e) {
            specs.forEach(s -> s.io().close());
            throw e;
        }
    }

    /**
     * Drops the packets of {@code pattern} on port {@code port}'s link: frames leaving the switch there and, when
     * {@code ingressToo} (a host's link), frames entering it, through one rule (each listed PSN of a QP dropped once per
     * link, as in the simulator; a link between switches is checked at each switch's egress only). Call before the
     * agent runs. Returns the rule, which counts what it dropped.
     */
    public PsnDropRule dropPsns(int port, PsnPattern pattern, boolean ingressToo) {
        PsnDropRule rule = pattern.newRule();
        ports[port].dropOut = rule;
        ports[port].dropIn = ingressToo ? rule : null;
        return rule;
    }

    /** Interface name of a switch port inside its namespace ({@code urdma topo up} makes them). */
    public static String portInterface(int port) {
        return "p" + port;
    }

    private static Impairment impairment(ImpairmentConfig c, SplittableRandom seeds) {
        long seed = seeds.nextLong();
        return c == null || c.isNone() ? null : new Impairment(c, new SplittableRandom(seed));
    }

    public String name() {
        return name;
    }

    public SwitchCore core() {
        return core;
    }

    public int portCount() {
        return ports.length;
    }

    public RtPort port(int i) {
        return ports[i];
    }

    public RtOptions options() {
        return options;
    }

    /**
     * Copies the core's counters into Agrona counters (e.g. a memory-mapped counters file read live)
     * every {@code periodNs} from the driver thread; call before the agent runs.
     */
    public void publish(SwitchCounters counters, long periodNs) {
        if (periodNs <= 0) {
            throw new IllegalArgumentException("publish period must be > 0 ns, was " + periodNs);
        }
        this.published = counters;
        this.publishPeriodNs = periodNs;
    }

    /** Frames held by impairment delay right now, all ports. */
    public int delayed() {
        int n = 0;
        for (RtPort p : ports) {
            n += p.held();
        }
        return n;
    }

    /** How the driver thread slept (WAIT): wake-ups by a readable port and by timeout. */
    public String sleepCounts() {
        return waiter.readableWakeups() + " woken by frames, " + waiter.timedOutWakeups() + " by timeout";
    }

    /** Largest uncertainty of the realtime-to-monotonic offset that dates received frames, ns. */
    public long epochOffsetUncertaintyNs() {
        return offsetUncertaintyNs;
    }

    /** Nanoseconds the driver has been running (first to last pass). */
    public long runNanos() {
        return lastNs - startNs;
    }

    @Override
    public String roleName() {
        return "switch-" + name;
    }

    @Override
    public void onStart() {
        startNs = clock.nanoTime();
        lastNs = startNs;
        PortWaiter.timerSlack(1_000);
        if (options.nice != 0 && !PortWaiter.niceness(options.nice)) {
            System.err.println("switch " + name + ": cannot set the driver thread's nice value to " + options.nice
                + " (needs root for < 0); running at the default");
        }
    }

    @Override
    public int doWork() {
        wall = clock.nanoTime();
        if (startNs == 0) {
            startNs = wall;
        }
        if (stamps && wall >= nextOffsetRefresh) {
            refreshEpochOffset();
        }
        int work = 0;
        for (RtPort p : ports) {
            work += p.io.receive(p.receiver, Integer.MAX_VALUE);
        }
        now = Math.max(now, wall);
        for (RtPort p : ports) {
            if (p.ingressHeap != null && p.ingressHeap.nextRelease() <= now) {
                work += releaseIngress(p);
            }
        }
        if (work > 0 || now >= nextPoll) {
            nextPoll = core.poll(now);
            sincePoll = 0;
        }
        long next = nextPoll;
        for (RtPort p : ports) {
            if (p.egressHeap != null) {
                if (p.egressHeap.nextRelease() <= now) {
                    work += releaseEgress(p);
                }
                next = Math.min(next, p.egressHeap.nextRelease());
            }
            if (p.ingressHeap != null) {
                next = Math.min(next, p.ingressHeap.nextRelease());
            }
            p.io.flush();
        }
        if (published != null && now >= nextPublish) {
            published.publish();
            nextPublish = now + publishPeriodNs;
        }
        nextDeadline = published == null ? next : Math.min(next, nextPublish);
        lastNs = now;
        if (work > 0) {
            lastWorkNs = now;
        }
        // a deadline close ahead: keep polling rather than let the idle strategy park past it
        return work == 0 && next - now <= spinWindowNs ? 1 : work;
    }

    /**
     * Idle step of {@link RtOptions.Idle#WAIT}: keeps spinning for a moment after work (frames come in
     * bursts) and while the next deadline is within the spin window, else sleeps in {@code ppoll} on the
     * ports until a frame arrives or the spin window before the deadline begins. Driver thread only.
     */
    void idle() {
        long t = clock.nanoTime();
        long sleep = Math.min(nextDeadline - spinWindowNs - t, MAX_SLEEP_NS);
        if (t - lastWorkNs < SPIN_AFTER_WORK_NS || sleep <= 0) {
            Thread.onSpinWait();
            return;
        }
        waiter.await(sleep);
    }

    /**
     * Realtime minus monotonic, from the tightest of a few realtime reads bracketed by monotonic ones (a
     * read interrupted by the scheduler would be off by the interruption); error well under a microsecond.
     */
    private void refreshEpochOffset() {
        long bestGap = Long.MAX_VALUE;
        long after = 0;
        for (int i = 0; i < 8 && bestGap > 2_000; i++) {
            long before = clock.nanoTime();
            long real = waiter.realtimeNanos();
            after = clock.nanoTime();
            if (after - before < bestGap) {
                bestGap = after - before;
                epochToMono = real - (before + bestGap / 2);
            }
        }
        nextOffsetRefresh = after + (bestGap > 20_000 ? 10_000_000L : 1_000_000_000L);
        offsetUncertaintyNs = Math.max(offsetUncertaintyNs, bestGap / 2);
    }

    /**
     * A frame's time for the core: the kernel's receive timestamp (a frame that waited in the ring while
     * the driver slept or was descheduled is dated when it came in, so its delay and serialization start
     * there), kept within [the core's last time, the clock now] so the core's time never runs backwards.
     */
    private long stamp(long arrivalEpochNs) {
        long t = stamps && arrivalEpochNs > 0 ? arrivalEpochNs - epochToMono : wall;
        if (t > wall) {
            wall = clock.nanoTime();
            t = Math.min(t, wall);
        }
        return Math.max(t, now);
    }

    private void onReceive(RtPort p, DirectBuffer buffer, int off, int len, long arrivalEpochNs) {
        if (++sincePoll >= POLL_EVERY) {
            // a port hands over its whole ring at once: let the core send between bursts, as a real
            // switch would, rather than buffer thousands of frames (and send XOFF) before the first poll;
            // one clock read per burst keeps the core's time moving while a backlog drains
            wall = clock.nanoTime();
            now = Math.max(now, wall);
            nextPoll = core.poll(now);
            sincePoll = 0;
        }
        now = stamp(arrivalEpochNs);
        if (capture != null) {
            capture.received(p.index, buffer, off, len, now);
        }
        if (p.dropIn != null && p.dropIn.drops(buffer, off, len)) {
            return;
        }
        Impairment imp = p.ingress;
        if (imp == null) {
            core.onFrame(p.index, buffer, off, len, now);
            return;
        }
        Impairment.Result r = imp.offer(now, len);
        for (int i = 0; i < r.copies; i++) {
            int flip = r.corruptByte[i];
            int mask = r.corruptMask[i];
            if (r.releaseAt[i] <= now && flip < 0) {
                core.onFrame(p.index, buffer, off, len, now);
            } else if (!p.ingressHeap.add(buffer, off, len, r.releaseAt[i], flip, mask)) {
                p.delayFull++;
            }
        }
    }

    private void late(RtPort p, long releaseAt) {
        long late = now - releaseAt;
        p.delayed++;
        p.lateSumNs += late;
        p.lateMaxNs = Math.max(p.lateMaxNs, late);
    }

    private int releaseIngress(RtPort p) {
        int n = 0;
        ReleaseHeap heap = p.ingressHeap;
        while (heap.nextRelease() <= now) {
            late(p, heap.nextRelease());
            int len = heap.pollInto(scratch, 0);
            core.onFrame(p.index, scratch, 0, len, now);
            n++;
        }
        return n;
    }

    private int releaseEgress(RtPort p) {
        int n = 0;
        ReleaseHeap heap = p.egressHeap;
        while (heap.nextRelease() <= now) {
            late(p, heap.nextRelease());
            int len = heap.peekLength();
            MutableDirectBuffer slot = p.io.claim(len);
            if (slot != null) {
                heap.pollInto(slot, p.io.claimedOffset());
                p.io.commit(len);
            } else {
                heap.pollInto(scratch, 0);
                if (!p.io.send(scratch, 0, len)) {
                    p.txRefused++;
                }
            }
            n++;
        }
        return n;
    }

    /** Where the core's frames go: straight into a port's TX slot when the port lends one and nothing impairs it. */
    private final class Output implements SwitchCore.SlotTransmitter {
        private MutableDirectBuffer claimed;
        private int claimedPort;

        @Override
        public MutableDirectBuffer claim(int port, int length) {
            RtPort p = ports[port];
            claimedPort = port;
            claimed = p.egress == null && p.dropOut == null ? p.io.claim(length) : null;
            return claimed;
        }

        @Override
        public int claimedOffset() {
            return ports[claimedPort].io.claimedOffset();
        }

        @Override
        public void commit(int port, int length, long txStartNs, long txEndNs) {
            RtPort p = ports[port];
            if (capture != null) {
                capture.sent(port, claimed, p.io.claimedOffset(), length, now);
            }
            p.io.commit(length);
        }

        @Override
        public void transmit(int port, DirectBuffer buffer, int offset, int length, long txStartNs, long txEndNs) {
            RtSwitch.this.transmit(port, buffer, offset, length, txStartNs, txEndNs);
        }
    }

    /** The core starts sending a frame on {@code port} (the buffer is valid only during this call). */
    private void transmit(int port, DirectBuffer buffer, int offset, int length, long txStart, long txEnd) {
        RtPort p = ports[port];
        if (capture != null) {
            capture.sent(port, buffer, offset, length, now);
        }
        if (p.dropOut != null && p.dropOut.drops(buffer, offset, length)) {
            return;
        }
        Impairment imp = p.egress;
        if (imp == null) {
            if (!p.io.send(buffer, offset, length)) {
                p.txRefused++;
            }
            return;
        }
        Impairment.Result r = imp.offer(txEnd, length);
        for (int i = 0; i < r.copies; i++) {
            if (r.releaseAt[i] <= now && r.corruptByte[i] < 0) {
                if (!p.io.send(buffer, offset, length)) {
                    p.txRefused++;
                }
            } else if (!p.egressHeap.add(buffer, offset, length, r.releaseAt[i], r.corruptByte[i], r.corruptMask[i])) {
                p.delayFull++;
            }
        }
    }

    /** Flushes and closes every port and the capture; idempotent. Called by the agent runner when it stops. */
    @Override
    public void onClose() {
        if (closed) {
            return;
        }
        closed = true;
        RuntimeException failure = null;
        for (RtPort p : ports) {
            try {
                p.io.close();
            } catch (RuntimeException e) {
                failure = e;
            }
        }
        if (capture != null) {
            capture.close();
        }
        if (published != null) {
            published.publish();
        }
        if (failure != null) {
            throw failure;
        }
    }
}
