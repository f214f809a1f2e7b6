package org.urdma.transport.engine;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import org.urdma.transport.driver.MemoryFabric;
import org.urdma.transport.driver.SimulatedDriver;
import org.urdma.transport.wire.FramingKind;
import org.urdma.transport.impair.ImpairmentConfig;
import org.urdma.transport.link.MemoryLink;
import org.urdma.transport.recovery.LossRecovery;
import org.urdma.verbs.CompletionQueue;
import org.urdma.verbs.MemoryRegion;
import org.urdma.verbs.ProtectionDomain;
import org.urdma.verbs.QpType;
import org.urdma.verbs.QueuePair;
import org.urdma.verbs.WorkCompletion;

/** Two devices on a MemoryLink under a virtual clock, with the usual verbs objects, for engine tests. */
final class Rig implements AutoCloseable {
    static final long START = 1_000_000_000L;
    final MemoryFabric fabric;
    final SimulatedDriver sim;
    final ProtectionDomain pdA, pdB;
    final CompletionQueue cqA, cqB;
    final Arena arena = Arena.ofShared();
    private final List<WorkCompletion> seenA = new ArrayList<>(), seenB = new ArrayList<>();
    private final WorkCompletion[] buf = new WorkCompletion[64];

    Rig() {
        this(ImpairmentConfig.none(), ImpairmentConfig.none(), LossRecovery.goBackN(), MemoryLink.Config.defaults());
    }

    Rig(ImpairmentConfig aToB, ImpairmentConfig bToA, LossRecovery.Factory rel, MemoryLink.Config link) {
        this(aToB, bToA, rel, link, 512);
    }

    Rig(ImpairmentConfig aToB, ImpairmentConfig bToA, LossRecovery.Factory rel, MemoryLink.Config link, int window) {
        this(aToB, bToA, rel, link, window, MemoryFabric.CodecFactory.wire(FramingKind.ROCE2));
    }

    Rig(ImpairmentConfig aToB, ImpairmentConfig bToA, LossRecovery.Factory rel, MemoryLink.Config link, int window, MemoryFabric.CodecFactory codec) {
        this(aToB, bToA, rel, link, window, codec, MemoryFabric.Telemetry.IN_MEMORY);
    }

    /** Devices that count and journal where {@code telemetry} says. */
    Rig(ImpairmentConfig aToB, ImpairmentConfig bToA, MemoryFabric.Telemetry telemetry) {
        this(aToB, bToA, LossRecovery.goBackN(), MemoryLink.Config.defaults(), 512, MemoryFabric.CodecFactory.wire(FramingKind.ROCE2),
                telemetry);
    }

    Rig(ImpairmentConfig aToB, ImpairmentConfig bToA, LossRecovery.Factory rel, MemoryLink.Config link, int window, MemoryFabric.CodecFactory codec,
        MemoryFabric.Telemetry telemetry) {
        fabric = new MemoryFabric(DeviceConfig.named("a", 1).withLossRecovery(rel).withWindow(window),
                DeviceConfig.named("b", 2).withLossRecovery(rel).withWindow(window), link, codec, aToB, bToA, 42, START, telemetry);
        sim = new SimulatedDriver(START, fabric.a, fabric.b);
        pdA = fabric.a.allocPd();
        pdB = fabric.b.allocPd();
        cqA = fabric.a.createCq(4096, null);
        cqB = fabric.b.createCq(4096, null);
        for (int i = 0; i < buf.length; i++) buf[i] = new WorkCompletion();
    }

    QueuePair[] connect(QpType type, MemoryFabric.Connection c) {
        return connect(type, c, 512);
    }

    QueuePair[] connect(QpType type, MemoryFabric.Connection c, int depth) {
        // PSNs near the 2^24 wrap on one side, so every test crosses it
        return fabric.connect(pdA, MemoryFabric.init(type, cqA, depth), pdB, MemoryFabric.init(type, cqB, depth), c, 0xFFFFF0, 100);
    }

    /** An RC pair in WAN mode with {@code uethFlags} on both sides (PSNs across the 2^24 wrap on one side). */
    QueuePair[] wan(int uethFlags, MemoryFabric.Connection c, int depth) {
        QueuePair qa = pdA.createQp(MemoryFabric.init(QpType.RC, cqA, depth));
        QueuePair qb = pdB.createQp(MemoryFabric.init(QpType.RC, cqB, depth));
        ((SoftQp) qa).wan(uethFlags, 0, 0);
        ((SoftQp) qb).wan(uethFlags, 0, 0);
        MemoryFabric.bringUp(qa, fabric.b, qb.qpNum(), 100, 0xFFFFF0, c);
        MemoryFabric.bringUp(qb, fabric.a, qa.qpNum(), 0xFFFFF0, 100, c);
        return new QueuePair[] {qa, qb};
    }

    QueuePair[] rc() {
        return connect(QpType.RC, MemoryFabric.Connection.defaults());
    }

    MemorySegment segment(long size) {
        return arena.allocate(size, 64);
    }

    MemoryRegion mrA(long size, int access) {
        return pdA.registerMemory(segment(size), access);
    }

    MemoryRegion mrB(long size, int access) {
        return pdB.registerMemory(segment(size), access);
    }

    private void drain() {
        int n;
        while ((n = cqA.poll(buf)) > 0) for (int i = 0; i < n; i++) seenA.add(copy(buf[i]));
        while ((n = cqB.poll(buf)) > 0) for (int i = 0; i < n; i++) seenB.add(copy(buf[i]));
    }

    private static WorkCompletion copy(WorkCompletion w) {
        WorkCompletion c = new WorkCompletion();
        c.wrId = w.wrId; c.status = w.status; c.opcode = w.opcode; c.byteLen = w.byteLen; c.immData = w.immData;
        c.invalidatedRkey = w.invalidatedRkey; c.qpNum = w.qpNum; c.srcQp = w.srcQp; c.flags = w.flags;
        return c;
    }

    /** Runs until side A's CQ has {@code n} completions (drained into the list); fails the test after maxNanos. */
    List<WorkCompletion> awaitA(int n, long maxNanos) {
        sim.runUntil(() -> { drain(); return seenA.size() >= n; }, maxNanos);
        return take(seenA, n);
    }

    List<WorkCompletion> awaitB(int n, long maxNanos) {
        sim.runUntil(() -> { drain(); return seenB.size() >= n; }, maxNanos);
        return take(seenB, n);
    }

    private static List<WorkCompletion> take(List<WorkCompletion> l, int n) {
        if (l.size() < n) throw new AssertionError("expected " + n + " completions, got " + l.size() + ": " + l);
        List<WorkCompletion> out = new ArrayList<>(l.subList(0, n));
        l.subList(0, n).clear();
        return out;
    }

    /** Completions seen so far and not yet taken. */
    List<WorkCompletion> pendingA() { drain(); return List.copyOf(seenA); }
    List<WorkCompletion> pendingB() { drain(); return List.copyOf(seenB); }

    void run(long nanos) {
        sim.runFor(nanos);
        drain();
    }

    @Override
    public void close() {
        arena.close();
    }
}
