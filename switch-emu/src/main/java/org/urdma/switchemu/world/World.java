package org.urdma.switchemu.world;

import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.lang.foreign.Arena;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.urdma.switchemu.core.SwitchConfig;
import org.urdma.switchemu.sim.Simulator;
import org.urdma.transport.impair.Impairment;
import org.urdma.transport.impair.ImpairmentConfig;
import org.urdma.transport.impair.PsnDropRule;
import org.urdma.transport.impair.PsnPattern;
import org.urdma.transport.counters.EngineCounters;
import org.urdma.transport.engine.DeviceConfig;
import org.urdma.transport.engine.SoftDevice;
import org.urdma.transport.journal.EventJournal;
import org.urdma.transport.link.Ecn;
import org.urdma.transport.link.LinkFraming;
import org.urdma.transport.pcap.PcapWriter;
import org.urdma.transport.wire.FramingKind;

/**
 * One simulated world under one clock: urdma devices (the real engine and its policies) and real switch cores,
 * joined by wires with a rate, a propagation delay and impairment, all driven by one discrete-event queue. Frames
 * live in an off-heap pool from the sender's write to the receiver's read; events are primitive, so the hot path
 * allocates nothing. Every random choice comes from the one seed, so a world built the same way runs the same way,
 * to the byte.
 */
public final class World implements AutoCloseable {
    private static final int ARRIVE = 1;
    private static final int DEVICE = 2;
    private static final int SWITCH = 3;
    private static final int TASK = 4;
    private static final int HOST_TX = 5;
    /** Engine passes at one instant before the device yields to the other events of that instant. */
    private static final int PASSES_PER_VISIT = 64;

    final FramePool pool = new FramePool();
    private final Simulator sim;
    private final SplittableRandom seeds;
    private final List<DeviceHost> hosts = new ArrayList<>();
    private final List<SwitchNode> switches = new ArrayList<>();
    private final List<Wire> wires = new ArrayList<>();
    private final List<Runnable> tasks = new ArrayList<>();
    private final List<Workload> workloads = new ArrayList<>();
    private final List<PcapWriter> captures = new ArrayList<>();
    final Arena arena = Arena.ofShared();
    private long devicePasses;
    private boolean closed;
    private long nextVirtualAddress = 0x7f00_0000_0000L;
    /** Set when frames describe their payloads instead of carrying them (see {@link #describePayloads}). */
    private PatternMemory patterns;

    public World(long seed, long startNs) {
        this.seeds = new SplittableRandom(seed);
        this.sim = new Simulator(startNs, this::onEvent);
    }

    public long now() {
        return sim.now();
    }

    /** Events run so far. */
    public long events() {
        return sim.executed();
    }

    /** Engine passes run so far (all devices). */
    public long devicePasses() {
        return devicePasses;
    }

    /**
     * From now on frames describe payloads taken from pattern memory instead of carrying the bytes, and workloads use
     * pattern memory (mapped, never touched): a 100 Gbit/s path with a gigabyte in flight then holds ~100 bytes per
     * frame and no gigabyte of registered memory. The engine is the same; its payload copies go through
     * {@link org.urdma.transport.packet.Payloads}. Call before adding devices.
     */
    public World describePayloads() {
        if (!hosts.isEmpty()) throw new IllegalStateException("describe payloads: call before adding devices");
        if (patterns == null) patterns = new PatternMemory();
        return this;
    }

    /** Whether frames describe payloads instead of carrying them. */
    public boolean describesPayloads() {
        return patterns != null;
    }

    /** Pattern memory of a world that describes payloads, else null. */
    PatternMemory patterns() {
        return patterns;
    }

    /** Off-heap bytes the frame pool holds (its high water, in slots). */
    public long framePoolBytes() {
        return pool.reservedBytes();
    }

    /** Most frames in flight at once. */
    public int framesInFlightHighWater() {
        return pool.highWater();
    }

    public List<DeviceHost> hosts() {
        return hosts;
    }

    public List<SwitchNode> switches() {
        return switches;
    }

    public List<Workload> workloads() {
        return workloads;
    }

    public SwitchNode addSwitch(String name, SwitchConfig config) {
        SwitchNode s = new SwitchNode(switches.size(), name, this, config, seeds.nextLong());
        switches.add(s);
        return s;
    }

    /** A urdma device sending RoCEv2 (ECT(0)) frames untagged; its traffic is in class {@code priority} for PFC. */
    public DeviceHost addDevice(DeviceConfig config, int maxPayload, int priority) {
        long mac = 0;
        for (byte b : config.mac()) mac = (mac << 8) | (b & 0xFF);
        LinkFraming framing = new LinkFraming(FramingKind.ROCE2, true, config.mac(), config.gid().toBytes(), -1, 0,
                false, Ecn.ECT0);
        if (patterns != null) framing.payloads(patterns);
        DeviceHost h = new DeviceHost(hosts.size(), config.name(), this, framing, mac, maxPayload, priority);
        h.device = new SoftDevice(config, h, new SplittableRandom(seeds.nextLong()), sim.now(),
                EngineCounters.inMemory(config.name()), EventJournal.NONE);
        hosts.add(h);
        return h;
    }

    /**
     * Joins host {@code h} to port {@code port} of {@code s} at {@code rateBps} (the switch port's own rate is its
     * configuration's) with {@code delayNs} of propagation; impairment per direction (null: none).
     */
    public void connect(DeviceHost h, SwitchNode s, int port, long rateBps, long delayNs, ImpairmentConfig toSwitch,
                        ImpairmentConfig toHost) {
        if (h.out != null) throw new IllegalArgumentException("host " + h.name() + ": already connected");
        h.rateBps = rateBps;
        h.out = wire(null, s, port, rateBps, delayNs, toSwitch);
        s.out[port] = wire(h, null, 0, rateBps, delayNs, toHost);
        s.core.addStaticMac(h.mac(), port);
    }

    /** Joins port {@code pa} of {@code a} to port {@code pb} of {@code b}. */
    public void connect(SwitchNode a, int pa, SwitchNode b, int pb, long rateBps, long delayNs, ImpairmentConfig aToB,
                        ImpairmentConfig bToA) {
        a.out[pa] = wire(null, b, pb, rateBps, delayNs, aToB);
        b.out[pb] = wire(null, a, pa, rateBps, delayNs, bToA);
    }

    private Wire wire(DeviceHost host, SwitchNode sw, int port, long rate, long delay, ImpairmentConfig impair) {
        Wire w = new Wire(wires.size(), host, sw, port, rate, delay);
        long seed = seeds.nextLong(); // drawn for every wire, so adding impairment to one moves no other seed
        if (impair != null && !impair.isNone()) w.impairment = new Impairment(impair, new SplittableRandom(seed));
        wires.add(w);
        return w;
    }

    /** Records every frame host {@code h} sends (to) and receives (from the switch) in pcap, timestamped in sim time. */
    public void capture(DeviceHost h, OutputStream sent, OutputStream received) {
        try {
            h.out.capture = add(new PcapWriter(sent, PcapWriter.DEFAULT_SNAPLEN));
            for (SwitchNode s : switches) {
                for (Wire w : s.out) {
                    if (w != null && w.host == h) w.capture = add(new PcapWriter(received, PcapWriter.DEFAULT_SNAPLEN));
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private PcapWriter add(PcapWriter w) {
        captures.add(w);
        return w;
    }

    /** Runs {@code w} on host {@code h} from {@code startNs}. */
    public void add(DeviceHost h, Workload w, long startNs) {
        h.workloads.add(w);
        workloads.add(w);
        at(startNs, () -> {
            w.start(sim.now());
            runDevice(h);
        });
    }

    /**
     * Runs {@code h}'s engine and workloads at {@code at} (a primitive event: a workload that starts work at set times,
     * such as flow arrivals, asks for its next one without a task per arrival).
     */
    public void wake(DeviceHost h, long at) {
        schedule(Math.max(at, sim.now()), DEVICE, h.index, 0);
    }

    /** Runs {@code task} at {@code at} (setup and sampling, not per frame). */
    public void at(long at, Runnable task) {
        tasks.add(task);
        schedule(at, TASK, tasks.size() - 1, 0);
    }

    /** Runs {@code task} at {@code startNs} and every {@code periodNs} after (sampling: one task, no list growth). */
    public void every(long startNs, long periodNs, Runnable task) {
        if (periodNs < 1 || periodNs > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("period: must be 1 ns..2.1 s, was " + periodNs + " ns");
        }
        tasks.add(task);
        schedule(startNs, TASK, tasks.size() - 1, (int) periodNs);
    }

    /**
     * Drops the packets of {@code pattern} on the link of host {@code h} (both directions, one rule: each listed PSN of a
     * QP is dropped once on this link). Returns the rule, which counts what it dropped.
     */
    public PsnDropRule dropPsns(DeviceHost h, PsnPattern pattern) {
        if (h.out == null) throw new IllegalArgumentException("host " + h.name() + ": connect it before dropPsns");
        return dropPsns(h.out.sw, h.out.port, pattern);
    }

    /** As {@link #dropPsns(DeviceHost, PsnPattern)} on the link at port {@code port} of switch {@code s}. */
    public PsnDropRule dropPsns(SwitchNode s, int port, PsnPattern pattern) {
        Wire out = s.out[port];
        if (out == null) throw new IllegalArgumentException("switch " + s.name() + " port " + port + ": not connected");
        PsnDropRule rule = pattern.newRule();
        out.drop = rule;
        for (Wire w : wires) {
            if (w.sw == s && w.port == port) w.drop = rule;
        }
        return rule;
    }

    /** Frames the wires' PSN drop patterns dropped. */
    public long psnDropped() {
        long n = 0;
        java.util.Set<PsnDropRule> seen = java.util.Collections.newSetFromMap(new java.util.IdentityHashMap<>());
        for (Wire w : wires) {
            if (w.drop != null && seen.add(w.drop)) n += w.drop.dropped();
        }
        return n;
    }

    /** Frames the wires' impairment dropped. */
    public long impairmentLost() {
        long n = 0;
        for (Wire w : wires) n += w.impairment == null ? 0 : w.impairment.lost();
        return n;
    }

    /** A virtual address for a region of {@code bytes}, the same in every run of a world built the same way. */
    long virtualAddress(long bytes) {
        long va = nextVirtualAddress;
        nextVirtualAddress += (bytes + 0xFFFF) & ~0xFFFFL;
        return va;
    }

    public boolean finished() {
        for (Workload w : workloads) {
            if (!w.finished()) return false;
        }
        return true;
    }

    /** Runs until every workload finished or the clock passes {@code untilNs}; returns whether they all did. */
    public boolean runUntilFinished(long untilNs) {
        return sim.runUntil(untilNs, () -> finished() && !workloads.isEmpty()) || finished();
    }

    /** Runs every event up to {@code untilNs}; the clock ends there. */
    public void runUntil(long untilNs) {
        sim.runUntil(untilNs);
    }

    private void onEvent(long code, long now) {
        int kind = (int) (code >>> 56);
        int target = (int) (code >>> 32) & 0xFF_FFFF;
        int arg = (int) code;
        switch (kind) {
            case ARRIVE -> {
                Wire w = wires.get(target);
                if (w.host != null) {
                    w.host.arrive(arg, now);
                    runDevice(w.host);
                } else {
                    w.sw.arrive(w.port, arg, now);
                }
            }
            case DEVICE -> {
                DeviceHost h = hosts.get(target);
                if (now >= h.pendingWake) h.pendingWake = Long.MAX_VALUE;
                runDevice(h);
            }
            case SWITCH -> {
                SwitchNode s = switches.get(target);
                if (now >= s.pendingWake) s.pendingWake = Long.MAX_VALUE;
                wakeSwitch(s, now);
            }
            case HOST_TX -> hosts.get(target).startFrames(now);
            case TASK -> {
                tasks.get(target).run();
                if (arg > 0) schedule(now + arg, TASK, target, arg); // periodic
            }
            default -> throw new IllegalStateException("event kind " + kind);
        }
    }

    private void schedule(long at, int kind, int target, int arg) {
        sim.schedule(at, ((long) kind << 56) | ((long) target << 32) | (arg & 0xFFFF_FFFFL));
    }

    /** Engine passes of {@code h} at this instant until it has nothing more to do now, then its next wake-up. */
    void runDevice(DeviceHost h) {
        long now = sim.now();
        SoftDevice d = h.device;
        boolean more = false;
        for (int i = 0; i < PASSES_PER_VISIT; i++) {
            int work = d.doWork(now);
            devicePasses++;
            boolean posted = false;
            for (int w = 0; w < h.workloads.size(); w++) posted |= h.workloads.get(w).poll(now);
            more = work > 0 || posted;
            if (!more) break;
        }
        long next = more ? now : d.nextEventTime();
        if (next == Long.MAX_VALUE && d.hasPendingWork()) next = now + 1_000; // as SimulatedDriver: look again soon
        if (next == Long.MAX_VALUE) return;
        next = Math.max(next, now);
        if (next < h.pendingWake || h.pendingWake < now) {
            h.pendingWake = next;
            schedule(next, DEVICE, h.index, 0);
        }
    }

    /** {@code h}'s next queued frame may start on its wire at {@code at}. */
    void wakeTx(DeviceHost h, long at) {
        schedule(at, HOST_TX, h.index, 0);
    }

    void wakeSwitch(SwitchNode s, long at) {
        long next = s.core.poll(at);
        if (next != Long.MAX_VALUE && (next < s.pendingWake || s.pendingWake <= at)) {
            s.pendingWake = Math.max(next, at);
            schedule(s.pendingWake, SWITCH, s.index, 0);
        }
    }

    /** The sender finished putting the frame in {@code slot} on {@code w} at {@code txEndNs}: impair, then deliver. */
    void carry(Wire w, int slot, long txEndNs) {
        int len = pool.length(slot);
        int wireLen = pool.wireLength(slot);
        w.frames++;
        w.bytes += wireLen;
        if (w.capture != null) w.capture.write(txEndNs, pool.buffer(slot), pool.offset(slot), len);
        if (w.drop != null && w.drop.drops(pool.buffer(slot), pool.offset(slot), len)) {
            pool.release(slot);
            return;
        }
        Impairment imp = w.impairment;
        if (imp == null) {
            schedule(txEndNs + w.propagationNs, ARRIVE, w.id, slot);
            return;
        }
        Impairment.Result r = imp.offer(txEndNs, wireLen);
        if (r.copies == 0) {
            pool.release(slot);
            return;
        }
        for (int i = 0; i < r.copies; i++) {
            int s = slot;
            if (i < r.copies - 1) { // a duplicate travels in a slot of its own
                s = pool.acquire(len);
                pool.buffer(s).putBytes(pool.offset(s), pool.buffer(slot), pool.offset(slot), len);
                pool.length(s, len);
                pool.wireLength(s, wireLen);
            }
            int corrupt = r.corruptByte[i];
            // a hit in payload bytes a described frame leaves out lands in its description: dropped on the ICRC alike
            if (corrupt >= len && corrupt < wireLen) corrupt = Math.max(0, len - 5);
            if (corrupt >= 0 && corrupt < len) {
                int at = pool.offset(s) + corrupt;
                pool.buffer(s).putByte(at, (byte) (pool.buffer(s).getByte(at) ^ r.corruptMask[i]));
            }
            schedule(Math.max(r.releaseAt[i], txEndNs) + w.propagationNs, ARRIVE, w.id, s);
        }
    }

    @Override
    public void close() {
        if (closed) return;
        closed = true;
        for (PcapWriter c : captures) {
            try {
                c.close();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        for (DeviceHost h : hosts) h.device.close();
        arena.close();
        if (patterns != null) patterns.close();
    }
}
