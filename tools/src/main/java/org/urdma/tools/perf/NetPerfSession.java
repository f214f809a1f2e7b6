package org.urdma.tools.perf;

import java.lang.foreign.Arena;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.Locale;
import java.util.SplittableRandom;
import org.urdma.nativeio.AfPacketOptions;
import org.urdma.transport.cm.ConnectionException;
import org.urdma.transport.cm.ConnectionManager;
import org.urdma.transport.cm.NeighborResolver;
import org.urdma.transport.cm.ExchangeChannel;
import org.urdma.transport.cm.ExchangeFormat;
import org.urdma.transport.cm.QpConnector;
import org.urdma.transport.cm.QpEndpoint;
import org.urdma.transport.cm.QpHandshake;
import org.urdma.transport.cm.UrdmaExchangeFormat;
import org.urdma.transport.driver.EngineDriver;
import org.urdma.transport.driver.InlineDriver;
import org.urdma.transport.driver.MemoryFabric;
import org.urdma.transport.driver.RealTimeDriver;
import org.urdma.transport.counters.EngineCounters;
import org.urdma.transport.engine.DeviceConfig;
import org.urdma.transport.engine.SoftDevice;
import org.urdma.transport.packet.Link;
import org.urdma.transport.link.ethernet.AfPacketLink;
import org.urdma.transport.link.ethernet.EthernetDatapath;
import org.urdma.transport.link.ethernet.EthernetLinkConfig;
import org.urdma.transport.link.ethernet.EthernetLinks;
import org.urdma.transport.pcap.PcapWriter;
import org.urdma.transport.rate.FixedRate;
import org.urdma.transport.port.PortIdentity;
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
 * One side of a perftest run across a real link, as perftest's own process is: a device on an AF_PACKET or TAP
 * port run by its agent thread, one QP and one buffer, connected to the peer process over the out-of-band TCP
 * exchange (this side connects when a peer is given, else it listens).
 */
final class NetPerfSession implements AutoCloseable {
    final PerfOptions o;
    final NetOptions n;
    final boolean server;
    final Link link;
    final EthernetDatapath datapath;
    final SoftDevice device;
    /** --counters / --journal. */
    final org.urdma.cli.EngineTelemetry telemetry;
    /** The engine's agent thread during connection setup; with --driver inline then the benchmark thread (InlineDriver). */
    private EngineDriver driver;
    /**
     * Longest wait at a barrier, for the peer's run between two barriers (unless --cm-timeout is longer): bounded, so
     * a peer that is alive but stuck ends the run too; one that vanished is noticed sooner, by TCP keepalive.
     */
    static final int BARRIER_TIMEOUT_SECONDS = 3600;
    /** Empty engine passes before --idle poll sleeps in poll(2) on the socket. */
    static final int POLL_SPINS = Integer.getInteger("urdma.pollSpins", 200);
    /** --idle poll on an AF_PACKET link: spin, then sleep in poll(2) on the socket until a frame arrives. */
    private final boolean pollIdle;
    private final boolean latencyTest;
    final ProtectionDomain pd;
    final CompletionQueue cq;
    final QueuePair qp;
    final MemoryRegion buf;
    /** All QPs (-q), index 0 being qp/cq/buf/local/remote, each with its own CQ, buffer and exchanged endpoint. */
    final CompletionQueue[] cqs;
    final QueuePair[] qps;
    final MemoryRegion[] bufs;
    final QpEndpoint[] locals;
    QpEndpoint[] remotes;
    final Arena arena = Arena.ofShared();
    final ConnectionManager cm;
    final ExchangeFormat format = new UrdmaExchangeFormat();
    QpEndpoint local;
    final String transportName;
    ExchangeChannel channel;
    QpEndpoint remote;
    /** perftest 6.06's exchange (the default, --exchange perftest): its socket and steps; null with --exchange urdma. */
    PerftestLink perftest;
    /** The key messages sent, one per QP (perftest exchange). */
    org.urdma.transport.cm.perftest.PerftestDest[] perftestMine;
    /** Path MTU both sides settled on (perftest exchange). */
    PathMtu pathMtu;
    /** QP1 and the IB CM of this port. */
    final org.urdma.transport.api.RdmaCm rdmaCm;
    /** -R: each QP's connection as the CM made it, to disconnect at the end. */
    org.urdma.transport.gsi.CmId[] cmIds;

    NetPerfSession(PerfOptions o, NetOptions n, int bufferSize, int depth, boolean latencyTest) {
        this.o = o;
        this.n = n;
        this.server = n.peer == null;
        this.latencyTest = latencyTest;
        QpType type = QpType.valueOf(o.connection.toUpperCase(Locale.ROOT));
        FramingKind kind = FramingKind.parse(o.framing);
        // V2 by default for every test: a V3 block holding the last frames of a window (or an ACK) is handed over
        // only when the kernel's retire timer fires (1 to 2 jiffies, later on a busy host), which stalls RC's window
        String ring = n.rxRing != null ? n.rxRing : "v2";
        AfPacketOptions.Version v = switch (ring.toLowerCase(Locale.ROOT)) {
            case "v2" -> AfPacketOptions.Version.V2;
            case "v3" -> AfPacketOptions.Version.V3;
            default -> throw new IllegalArgumentException("--rx-ring: v2 or v3, was '" + ring + "'");
        };
        EthernetLinks.Opened opened = EthernetLinks.open(o.link, n.ip, n.mac, mac -> config(kind, mac), v);
        Link l = opened.link();
        EthernetDatapath dp = opened.datapath();
        transportName = opened.description();
        this.link = l;
        this.datapath = dp;
        PcapWriter capture = n.openCapture();
        if (capture != null) dp.capture(capture, System.currentTimeMillis() * 1_000_000 - System.nanoTime());
        DeviceConfig dc = new DeviceConfig("urdma0", dp.config().port().mac(), 64, Math.max(4096, depth * 2), 16,
                Math.max(8192, depth * 4), 1024, 16, 256, 512, 64, o.dcReliability());
        // urdma's exchange: --rate_limit paces every packet in the engine, retransmissions too (perftest's exchange keeps
        // perftest's software limit on posts, in PerftestBw)
        if (!n.perftestExchange() && o.rateLimit > 0) dc = dc.withRateControl(FixedRate.factory(engineRateLimitBps(o)));
        long seed = System.nanoTime();
        this.telemetry = new org.urdma.cli.EngineTelemetry(o.counters, o.journal, dc.name());
        EngineCounters counters = telemetry.countersOf(dc);
        this.device = new SoftDevice(dc, l, new SplittableRandom(seed), System.nanoTime(), counters,
                telemetry.journal(dc, counters));
        dp.engineCounters(device.counters()); // pause time and CBFC credits in urdma stat's engine rows
        RealTimeDriver.Idle idle = o.idle.toLowerCase(Locale.ROOT).startsWith("busy") || o.idle.equalsIgnoreCase("spin")
                ? RealTimeDriver.Idle.BUSY_SPIN : RealTimeDriver.Idle.BACKOFF;
        EngineDriver.Mode.parse(o.driver); // a bad --driver fails before anything is set up
        // --idle poll: after a few empty passes the agent sleeps in poll(2) on the AF_PACKET socket (woken by a frame)
        this.pollIdle = o.idle.equalsIgnoreCase("poll") && l instanceof AfPacketLink;
        this.driver = pollIdle ? new RealTimeDriver(device, ((AfPacketLink) l).pollIdleStrategy(POLL_SPINS, 1, () -> device.nextEventTimeOr(System.nanoTime())))
                : new RealTimeDriver(device, idle);
        this.pd = device.allocPd();
        // QP1 as on a NIC: REQs for ports nobody listens on are rejected, and -R connects through it
        this.rdmaCm = org.urdma.transport.api.RdmaCm.on(device, pd, dp);
        int count = Math.max(1, o.qps);
        this.cqs = new CompletionQueue[count];
        this.qps = new QueuePair[count];
        this.bufs = new MemoryRegion[count];
        this.locals = new QpEndpoint[count];
        PathMtu mtu = PathMtu.ofBytes(Math.min(o.mtu, l.maxPayload()));
        SplittableRandom psns = new SplittableRandom(seed ^ 0x5DEECE66DL);
        for (int i = 0; i < count; i++) {
            cqs[i] = device.createCq(Math.max(64, depth * 2), null);
            qps[i] = pd.createQp(MemoryFabric.init(type, cqs[i], depth).maxInlineData(Math.max(64, o.inlineSize)));
            bufs[i] = pd.registerMemory(arena.allocate(bufferSize, 4096), AccessFlags.ALL);
            locals[i] = new QpEndpoint(0, qps[i].qpNum(), psns.nextInt(1 << 24),
                    o.gidIndex >= 0 ? dp.gids().gid(o.gidIndex) : dp.gids().gidFor(kind), dp.config().port().mac(), mtu,
                    bufs[i].rkey(), bufs[i].address(), bufs[i].length(), o.outReads, QpEndpoint.Features.ALL).withWan(o.wanOffer());
        }
        this.cq = cqs[0];
        this.qp = qps[0];
        this.buf = bufs[0];
        this.local = locals[0];
        this.cm = new ConnectionManager(new ConnectionManager.Config(Duration.ofSeconds(n.cmTimeoutSeconds),
                Duration.ofSeconds(n.cmTimeoutSeconds)));
    }

    /**
     * --rate_limit in bits of payload per second for the engine's per-QP pacer: g is Gbit/s, M is MB/s (perftest's
     * 2^20 bytes), p is messages of -s bytes per second.
     */
    static long engineRateLimitBps(PerfOptions o) {
        double bps = switch (o.rateUnits) {
            case "g" -> o.rateLimit * 1e9;
            case "M" -> o.rateLimit * (1 << 20) * 8;
            case "p" -> o.rateLimit * (o.size > 0 ? o.size : 65536) * 8.0;
            default -> throw new IllegalArgumentException("--rate_units: M, g or p, was '" + o.rateUnits + "'");
        };
        return Math.max(1, Math.round(bps));
    }

    /** How long a barrier waits for the peer: {@link #BARRIER_TIMEOUT_SECONDS}, or --cm-timeout if longer. */
    Duration barrierTimeout() {
        return Duration.ofSeconds(Math.max(n.cmTimeoutSeconds, BARRIER_TIMEOUT_SECONDS));
    }

    private EthernetLinkConfig config(FramingKind kind, byte[] mac) {
        EthernetLinkConfig c = EthernetLinkConfig.of(kind, PortIdentity.of(mac, n.ip)).withEcn(o.ecn);
        if (n.vlan >= 0) c = c.withVlan(n.vlan, n.pcp);
        return c.withLinkRate(n.linkRateBps()).withFlowControl(org.urdma.transport.link.ethernet.FlowControl.parse(n.flowControl),
                n.cbfcCredits);
    }

    MemoryFabric.Connection connection() {
        return MemoryFabric.Connection.defaults().withMtu(local.mtu()).withTimeout(n.ackTimeout).withRetryCnt(n.retryCnt);
    }

    /** Connects (client) or accepts (server) and brings the QP to RTS; prints where it waits. */
    void establish(java.io.PrintStream out) {
        establish(out, latencyTest);
    }

    /** As {@link #establish(java.io.PrintStream)}; {@code serverActive}: the server posts or answers, so it drives its engine. */
    void establish(java.io.PrintStream out, boolean serverActive) {
        for (QueuePair q : qps) if (q.state() == org.urdma.verbs.QpState.RESET) QpConnector.toInit(q, connection(), 0x11111111);
        if (server) {
            try (ConnectionManager.Listener l = cm.listen(new InetSocketAddress(n.port))) {
                out.printf("%n************************************%n* Waiting for client to connect... *%n************************************%n");
                out.flush();
                channel = l.accept(Duration.ofSeconds(Math.max(n.cmTimeoutSeconds, 60)));
            }
        } else {
            channel = cm.connect(new InetSocketAddress(n.peer, n.port));
        }
        remotes = new QpEndpoint[qps.length];
        for (int i = 0; i < qps.length; i++) { // one exchange per QP, in order, as perftest does for -q
            remotes[i] = QpHandshake.connect(channel, format, device, datapath, qps[i], locals[i], connection(), 0x11111111,
                    2_000_000_000L);
        }
        remote = remotes[0];
        // the agent answered ARP and ran the handshake; with --driver inline the benchmark thread now drives the
        // engine itself inside its CQ polls, unless this side only waits (the write-bw server), whose engine must
        // keep running without it
        goInline(serverActive);
    }

    /** A wait loop found no completion (it has waited since {@code since}): spin, or with --idle poll sleep in poll(2) on the socket. */
    void idle(long since) {
        if (driver instanceof InlineDriver inline) inline.idle();
        else Thread.onSpinWait();
    }

    /**
     * perftest 6.06's connection sequence up to RTS: version, system data, MTU, one key message per QP (advertising
     * {@code vaddr[i]} in QP i's buffer), RTR/RTS with perftest's attributes, the barrier after RTR and the second
     * round of key messages. The pre-run barrier (send and latency tests) is the caller's.
     */
    void establishPerftest(java.io.PrintStream out, long[] vaddr) {
        for (QueuePair q : qps) if (q.state() == org.urdma.verbs.QpState.RESET) QpConnector.toInit(q, connection(), 0x11111111);
        if (server) {
            out.printf("%n************************************%n* Waiting for client to connect... *%n************************************%n");
            out.flush();
        }
        // -R: perftest's exchange itself runs over an rdma_cm connection on the same port (use_rdma_cm), not TCP
        perftest = n.rdmaCm ? PerftestLink.over(RdmaCmChannel.open(device, pd, rdmaCm, n.peer, n.port, local.mtu().bytes(),
                Duration.ofSeconds(n.cmTimeoutSeconds)), server) : PerftestLink.open(n.peer, n.port, Duration.ofSeconds(n.cmTimeoutSeconds));
        int mtuBytes = perftest.negotiate(local.mtu().bytes());
        if (perftest.sysData().cycleBuffer() > PerftestLink.PAGE) {
            throw new IllegalStateException("perftest exchange: the peer's page size " + perftest.sysData().cycleBuffer()
                    + " is larger than the " + PerftestLink.PAGE + "-byte cycle buffer urdma perf lays out");
        }
        pathMtu = PathMtu.ofBytes(mtuBytes);
        if (n.rdmaCm) {
            connectThroughRdmaCm(out, vaddr);
            return;
        }
        perftestMine = new org.urdma.transport.cm.perftest.PerftestDest[qps.length];
        org.urdma.transport.cm.perftest.PerftestDest[] theirs = new org.urdma.transport.cm.perftest.PerftestDest[qps.length];
        org.urdma.verbs.Gid group = server ? PerfMulticast.group(o) : null;
        if (group != null) {
            // send_bw's server: the QP joins the group, whose GID and QPN 0xFFFFFF the client gets in place of ours
            PerfMulticast.checkFamily(group, FramingKind.parse(o.framing));
            qps[0].attachMcast(group, 0);
        }
        for (int i = 0; i < qps.length; i++) {
            perftestMine[i] = new org.urdma.transport.cm.perftest.PerftestDest(0, local.outReads(), group != null ? PerfMulticast.QPN : qps[i].qpNum(),
                    locals[i].psn(), bufs[i].rkey(), vaddr[i], group != null ? group.toBytes() : locals[i].gid().toBytes(), 0);
            theirs[i] = perftest.keys(perftestMine[i]);
        }
        remotes = new QpEndpoint[qps.length];
        MemoryFabric.Connection c = connection().withMtu(pathMtu);
        for (int i = 0; i < qps.length; i++) {
            org.urdma.transport.cm.perftest.PerftestDest d = theirs[i];
            org.urdma.verbs.Gid gid = org.urdma.verbs.Gid.of(d.gid());
            if (o.mcg && !server && !gid.isMulticast()) {
                throw new ConnectionException("-g: the server gave GID " + gid + ", no multicast group: is it running with -g too?");
            }
            if (gid.isMulticast()) {
                PerfMulticast.checkFamily(gid, FramingKind.parse(o.framing));
            } else if (org.urdma.transport.port.GidTable.isIpv4Mapped(gid) != org.urdma.transport.port.GidTable.isIpv4Mapped(locals[i].gid())) {
                throw new ConnectionException("perftest exchange: the peer's GID " + gid + " and ours " + locals[i].gid()
                        + " are not of one kind (use -x 1 for RoCEv2 on the stock tool, or the matching --framing here)");
            }
            byte[] mac = gid.isMulticast() ? org.urdma.transport.mcast.MulticastMac.bytes(gid, "the peer's GID")
                    : NeighborResolver.resolve(device, datapath, gid, 2_000_000_000L);
            remotes[i] = new QpEndpoint(d.lid(), d.qpn(), d.psn(), gid, mac, pathMtu, d.rkey(), d.vaddr(), 0,
                    Math.min(255, Math.max(1, d.outReads())), QpEndpoint.Features.ALL);
            locals[i] = new QpEndpoint(0, locals[i].qpn(), locals[i].psn(), locals[i].gid(), locals[i].mac(), pathMtu,
                    bufs[i].rkey(), vaddr[i], bufs[i].length(), locals[i].outReads(), QpEndpoint.Features.ALL);
            QpConnector.toRts(qps[i], locals[i], remotes[i], mac, c);
        }
        remote = remotes[0];
        local = locals[0];
        perftest.barrier("after RTR");
        for (int i = 0; i < qps.length; i++) perftest.keys(perftestMine[i]); // ctx_hand_shake per QP again (remote data printed)
    }

    /**
     * perftest's -R (create_rdma_cm_connection), on the exchange channel rdma_cm already connected: a sync, every QP
     * connected through rdma_cm on port -p (the server accepts them in order; the client retries a REJ as perftest does,
     * 10 tries 100 ms apart), a second sync, then the key messages (rkey and vaddr; the QPN and PSN come from the CM),
     * the barrier and the keys again: the steps of the exchange without -R, but no RTR/RTS of our own.
     */
    private void connectThroughRdmaCm(java.io.PrintStream out, long[] vaddr) {
        org.urdma.transport.cm.perftest.PerftestDest zero = new org.urdma.transport.cm.perftest.PerftestDest(0, 0, 0, 0, 0, 0, new byte[16], 0);
        Duration timeout = Duration.ofSeconds(n.cmTimeoutSeconds);
        int rdAtomic = Math.min(16, Math.max(1, local.outReads()));
        cmIds = new org.urdma.transport.gsi.CmId[qps.length];
        if (server) {
            try (org.urdma.transport.api.RdmaCmListener l = rdmaCm.listen(n.port)) { // before the sync: no REQ finds it closed
                perftest.sync(zero, "sync before rdma_cm");
                for (int i = 0; i < qps.length; i++) {
                    cmIds[i] = l.nextRequest(timeout);
                    rdmaCm.acceptQp(cmIds[i], qps[i], pathMtu.bytes(), rdAtomic, new byte[0], timeout);
                }
            }
        } else {
            perftest.sync(zero, "sync before rdma_cm");
            for (int i = 0; i < qps.length; i++) {
                cmIds[i] = RdmaCmChannel.connectWithRetry(rdmaCm, n.peer, n.port, qps[i], pathMtu.bytes(), rdAtomic, timeout);
            }
        }
        perftest.sync(zero, "sync after rdma_cm");
        perftestMine = new org.urdma.transport.cm.perftest.PerftestDest[qps.length];
        org.urdma.transport.cm.perftest.PerftestDest[] theirs = new org.urdma.transport.cm.perftest.PerftestDest[qps.length];
        remotes = new QpEndpoint[qps.length];
        for (int i = 0; i < qps.length; i++) {
            org.urdma.transport.gsi.CmId id = cmIds[i];
            PathMtu mtu = PathMtu.ofBytes(id.mtuBytes());
            perftestMine[i] = new org.urdma.transport.cm.perftest.PerftestDest(0, local.outReads(), qps[i].qpNum(), id.localPsn(),
                    bufs[i].rkey(), vaddr[i], locals[i].gid().toBytes(), 0);
            theirs[i] = perftest.keys(perftestMine[i]);
            org.urdma.transport.cm.perftest.PerftestDest d = theirs[i];
            remotes[i] = new QpEndpoint(d.lid(), id.remoteQpn(), id.remotePsn(), org.urdma.verbs.Gid.of(id.remoteGid()), id.peer().mac(),
                    mtu, d.rkey(), d.vaddr(), 0, Math.min(255, Math.max(1, d.outReads())), QpEndpoint.Features.ALL);
            locals[i] = new QpEndpoint(0, locals[i].qpn(), id.localPsn(), locals[i].gid(), locals[i].mac(), mtu,
                    bufs[i].rkey(), vaddr[i], bufs[i].length(), locals[i].outReads(), QpEndpoint.Features.ALL);
        }
        pathMtu = remotes[0].mtu();
        remote = remotes[0];
        local = locals[0];
        perftest.barrier("after RTR");
        for (int i = 0; i < qps.length; i++) perftest.keys(perftestMine[i]);
    }

    /** With --driver inline the benchmark thread drives the engine from now on (a side that only waits keeps its agent). */
    void goInline(boolean serverActive) {
        if (EngineDriver.Mode.parse(o.driver) == EngineDriver.Mode.INLINE && (!server || serverActive)
                && !(driver instanceof InlineDriver)) {
            driver.close();
            // inline, the benchmark thread idles the same way between polls that found nothing
            driver = pollIdle ? new InlineDriver(device, ((AfPacketLink) link).pollIdleStrategy(POLL_SPINS, 1, () -> device.nextEventTimeOr(System.nanoTime()))) : new InlineDriver(device);
        }
    }

    /** After an inline run: an agent drives the engine again, so ARP, ACKs and retransmissions go on during the final barriers. */
    void resumeAgent() {
        if (!(driver instanceof InlineDriver)) return;
        settle();
        driver.close();
        RealTimeDriver.Idle idle = o.idle.toLowerCase(Locale.ROOT).startsWith("busy") || o.idle.equalsIgnoreCase("spin")
                ? RealTimeDriver.Idle.BUSY_SPIN : RealTimeDriver.Idle.BACKOFF;
        driver = pollIdle ? new RealTimeDriver(device, ((AfPacketLink) link).pollIdleStrategy(POLL_SPINS, 1, () -> device.nextEventTimeOr(System.nanoTime())))
                : new RealTimeDriver(device, idle);
    }

    /** Nothing: every wait loop polls a CQ, and with the inline driver that poll is the engine's pass. */
    void progress() {
    }

    /** Inline: a few more engine passes until it is idle, so the last frames (a final answer, ACKs) leave the TX ring. */
    void settle() {
        if (!(driver instanceof InlineDriver inline)) return;
        long end = System.nanoTime() + 50_000_000L;
        int idle = 0;
        do { // at least one pass, even if this thread was descheduled past the deadline: a final answer must leave
            idle = inline.invoke() == 0 ? idle + 1 : 0;
        } while (idle < 100 && System.nanoTime() < end);
    }

    /**
     * Meets the peer at {@code step} over the out-of-band channel. When this thread drives the engine it keeps
     * driving it while the barrier is pending (the barrier waits on another thread): what is still owed to the peer —
     * a last answer or ACK, a retransmission — leaves even if the peer needs it before it can arrive here.
     */
    void barrier(String step) {
        Runnable meet = perftest != null ? () -> perftest.barrier(step) : () -> format.barrier(channel, local, step);
        if (!(driver instanceof InlineDriver inline)) {
            meet.run();
            return;
        }
        java.util.concurrent.CompletableFuture<Void> met = java.util.concurrent.CompletableFuture.runAsync(
                meet, r -> Thread.ofPlatform().daemon().name("perf-barrier").start(r));
        while (!met.isDone()) {
            if (inline.invoke() == 0) java.util.concurrent.locks.LockSupport.parkNanos(20_000);
        }
        try {
            met.join();
        } catch (java.util.concurrent.CompletionException e) {
            if (e.getCause() instanceof RuntimeException re) throw re;
            throw e;
        }
    }

    String driverName() {
        return driver.describe();
    }

    @Override
    public void close() {
        try {
            if (cmIds != null) for (org.urdma.transport.gsi.CmId id : cmIds) if (id != null) rdmaCm.disconnect(id);
            if (channel != null) channel.close();
            if (perftest != null) perftest.close();
        } finally {
            rdmaCm.close();
            cm.close();
            driver.close();
            telemetry.close();
            datapath.closeCapture();
            if (link instanceof AutoCloseable c) {
                try {
                    c.close();
                } catch (Exception e) {
                    System.err.println("urdma perf: closing the link: " + e.getMessage());
                }
            }
            arena.close();
        }
    }
}
