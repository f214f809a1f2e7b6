package org.urdma.tools.perf;

import java.lang.foreign.Arena;
import java.lang.foreign.ValueLayout;
import org.urdma.transport.driver.MemoryFabric;
import org.urdma.transport.driver.RealTimeDriver;
import org.urdma.transport.engine.DeviceConfig;
import org.urdma.transport.impair.ImpairmentConfig;
import org.urdma.transport.link.MemoryLink;
import org.urdma.transport.pcap.PcapWriter;
import org.urdma.transport.recovery.LossRecovery;
import org.urdma.transport.wire.FramingKind;
import org.urdma.verbs.AccessFlags;
import org.urdma.verbs.CompletionQueue;
import org.urdma.verbs.MemoryRegion;
import org.urdma.verbs.PathMtu;
import org.urdma.verbs.ProtectionDomain;
import org.urdma.verbs.QpType;
import org.urdma.verbs.QueuePair;

/**
 * Client and server of a perftest run in one JVM: two soft devices on a MemoryLink, one connected QP pair
 * (RC, UC or UD), one buffer per side. With the inline driver the calling thread advances both engines between posts and
 * polls; with the agent driver each device runs on its own Agrona agent thread.
 */
public final class PerfSession implements AutoCloseable {
    final MemoryFabric fabric;
    final Arena arena = Arena.ofShared();
    final ProtectionDomain pdA, pdB;
    public final CompletionQueue cqA, cqB;
    public final QueuePair client, server;
    public final MemoryRegion bufA, bufB;
    /** All QP pairs (-q), index 0 being client/server above, each with its own CQs and buffers. */
    final QueuePair[] clients, servers;
    final CompletionQueue[] cqsA, cqsB;
    final MemoryRegion[] bufsA, bufsB;
    final QpType type;
    private final RealTimeDriver driverA, driverB;
    /** --pcap/--pcapng: every frame either device sends, or null. */
    private final PcapWriter capture;
    /** The WAN mode both QPs of each pair run in ({@code WanOffer.NONE}: DC). */
    private final org.urdma.transport.cm.WanOffer wan;
    /** --counters / --journal. */
    final org.urdma.cli.EngineTelemetry telemetry;
    /** -g: the group the server's QP is attached to and the client sends to, or null. */
    final org.urdma.verbs.Gid mcastGroup;

    public PerfSession(PerfOptions o, int bufferSize, int depth) {
        this(o, 14, 7, bufferSize, depth, null);
    }

    /**
     * @param ackTimeout local ACK timeout code, @param retryCnt retries before RETRY_EXC_ERR (7: seven, as the IB specification counts them)
     * @param capture    where to write the frames both devices send (closed with the session), or null
     */
    PerfSession(PerfOptions o, int ackTimeout, int retryCnt, int bufferSize, int depth, PcapWriter capture) {
        if (!o.link.equalsIgnoreCase("memory")) {
            throw new IllegalArgumentException("--link: only 'memory' is available in this build, was '" + o.link + "'");
        }
        type = QpType.valueOf(o.connection.toUpperCase(java.util.Locale.ROOT));
        LossRecovery.Factory rel = o.dcReliability();
        wan = o.wanOffer();
        if (wan.on() && type != QpType.RC) throw new IllegalArgumentException("--wan/--fec/--cc/--reliability sack: WAN mode is RC only, was -c " + o.connection);
        FramingKind kind = FramingKind.parse(o.framing);
        PathMtu mtu = PathMtu.ofBytes(o.mtu);
        MemoryLink.Config link = MemoryLink.Config.defaults().withLatency(o.linkDelayUs * 1000).withSlots(o.linkSlots)
                .withGbps(o.linkGbit);
        ImpairmentConfig loss = o.loss > 0 || o.duplicate > 0 || o.reorder > 0
                ? ImpairmentConfig.random(o.loss, o.duplicate, o.reorder, 1) : ImpairmentConfig.none();
        this.capture = capture;
        telemetry = new org.urdma.cli.EngineTelemetry(o.counters, o.journal, "urdma0");
        fabric = new MemoryFabric(DeviceConfig.named("urdma0", 1).withLossRecovery(rel),
                DeviceConfig.named("urdma1", 2).withLossRecovery(rel), link, MemoryFabric.CodecFactory.wire(kind, o.paxiIcrc, o.ecn),
                loss, ImpairmentConfig.none(), System.nanoTime(), System.nanoTime(), telemetry);
        if (capture != null) {
            // what a capture at each sender's port sees (frames the link's loss drops are in it); both devices share
            // the writer, so records are written under its lock: capture is a debugging aid, not the measured path
            long offset = System.currentTimeMillis() * 1_000_000 - System.nanoTime();
            MemoryLink.FrameTap tap = (frame, off, len, now) -> {
                synchronized (capture) {
                    capture.write(now + offset, frame, off, len);
                }
            };
            fabric.linkA.tap(tap);
            fabric.linkB.tap(tap);
        }
        boolean agents = org.urdma.transport.driver.EngineDriver.Mode.parse(o.driver)
                == org.urdma.transport.driver.EngineDriver.Mode.THREAD;
        RealTimeDriver.Idle idle = switch (o.idle.toLowerCase(java.util.Locale.ROOT)) {
            case "busy-spin", "busy", "spin" -> RealTimeDriver.Idle.BUSY_SPIN;
            case "backoff" -> RealTimeDriver.Idle.BACKOFF;
            default -> throw new IllegalArgumentException("--idle: busy-spin or backoff, was '" + o.idle + "'");
        };
        if (o.gidIndex >= 0) fabric.a.gid(o.gidIndex); // -x: the memory link's ports have index 0 only (throws otherwise)
        driverA = agents ? new RealTimeDriver(fabric.a, idle) : null;
        driverB = agents ? new RealTimeDriver(fabric.b, idle) : null;
        pdA = fabric.a.allocPd();
        pdB = fabric.b.allocPd();
        cqA = fabric.a.createCq(depth * 2, null);
        cqB = fabric.b.createCq(depth * 2, null);
        MemoryFabric.Connection c = MemoryFabric.Connection.defaults().withMtu(mtu).withTimeout(ackTimeout)
                .withRetryCnt(retryCnt);
        QueuePair[] qps = connect(MemoryFabric.init(type, cqA, depth), MemoryFabric.init(type, cqB, depth), c, 0x2c6fc0, 0x1a2b3c);
        client = qps[0];
        server = qps[1];
        bufA = pdA.registerMemory(arena.allocate(bufferSize, 4096), AccessFlags.ALL);
        bufB = pdB.registerMemory(arena.allocate(bufferSize, 4096), AccessFlags.ALL);
        for (long i = 0; i + 8 <= bufferSize; i += 8) bufA.segment().set(ValueLayout.JAVA_LONG, i, i * 0x9E3779B97F4A7C15L);
        int n = Math.max(1, o.qps);
        clients = new QueuePair[n];
        servers = new QueuePair[n];
        cqsA = new CompletionQueue[n];
        cqsB = new CompletionQueue[n];
        bufsA = new MemoryRegion[n];
        bufsB = new MemoryRegion[n];
        clients[0] = client;
        servers[0] = server;
        cqsA[0] = cqA;
        cqsB[0] = cqB;
        bufsA[0] = bufA;
        bufsB[0] = bufB;
        for (int i = 1; i < n; i++) {
            cqsA[i] = fabric.a.createCq(depth * 2, null);
            cqsB[i] = fabric.b.createCq(depth * 2, null);
            QueuePair[] pair = connect(MemoryFabric.init(type, cqsA[i], depth), MemoryFabric.init(type, cqsB[i], depth), c,
                    0x2c6fc0 + i, 0x1a2b3c + i);
            clients[i] = pair[0];
            servers[i] = pair[1];
            bufsA[i] = pdA.registerMemory(arena.allocate(bufferSize, 4096), AccessFlags.ALL);
            bufsB[i] = pdB.registerMemory(arena.allocate(bufferSize, 4096), AccessFlags.ALL);
        }
        mcastGroup = PerfMulticast.group(o);
        if (mcastGroup != null) {
            PerfMulticast.checkFamily(mcastGroup, kind);
            server.attachMcast(mcastGroup, 0);
        }
    }

    /** A connected pair, in the WAN mode the options ask for (both sides in one process agree with themselves). */
    private QueuePair[] connect(org.urdma.verbs.QpInitAttributes ia, org.urdma.verbs.QpInitAttributes ib, MemoryFabric.Connection c,
                                int psnA, int psnB) {
        if (!wan.on()) return fabric.connect(pdA, ia, pdB, ib, c, psnA, psnB);
        QueuePair qa = pdA.createQp(ia);
        QueuePair qb = pdB.createQp(ib);
        org.urdma.transport.cm.QpConnector.wan(qa, wan.agree(wan));
        org.urdma.transport.cm.QpConnector.wan(qb, wan.agree(wan));
        MemoryFabric.bringUp(qa, fabric.b, qb.qpNum(), psnB, psnA, c);
        MemoryFabric.bringUp(qb, fabric.a, qa.qpNum(), psnA, psnB, c);
        return new QueuePair[] {qa, qb};
    }

    boolean inline() {
        return driverA == null;
    }

    /** Inline driver: one pass of both engines. No-op with agent threads. */
    public void progress() {
        if (driverA == null) {
            long now = System.nanoTime();
            fabric.a.doWork(now);
            fabric.b.doWork(now);
        }
    }

    String deviceName() {
        return fabric.a.name();
    }

    @Override
    public void close() {
        if (driverA != null) driverA.close();
        if (driverB != null) driverB.close();
        telemetry.close();
        arena.close();
        if (capture != null) {
            try {
                capture.close();
            } catch (java.io.IOException e) {
                throw new java.io.UncheckedIOException("--pcap: " + e.getMessage(), e);
            }
        }
    }
}
