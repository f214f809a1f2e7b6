package org.urdma.transport.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.Arena;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.urdma.transport.counters.Counter;
import org.urdma.transport.counters.EngineCounters;
import org.urdma.transport.driver.MemoryFabric;
import org.urdma.transport.driver.SimulatedDriver;
import org.urdma.transport.journal.EventJournal;
import org.urdma.transport.impair.ImpairmentConfig;
import org.urdma.transport.link.LinkFraming;
import org.urdma.transport.link.MemoryLink;
import org.urdma.transport.rate.RateControl;
import org.urdma.transport.rate.Rrcc;
import org.urdma.transport.recovery.LossRecovery;
import org.urdma.transport.wire.FramingKind;
import org.urdma.transport.wire.OpcodeTable;
import org.urdma.verbs.AccessFlags;
import org.urdma.verbs.CompletionQueue;
import org.urdma.verbs.MemoryRegion;
import org.urdma.verbs.PathMtu;
import org.urdma.verbs.ProtectionDomain;
import org.urdma.verbs.QpType;
import org.urdma.verbs.QueuePair;
import org.urdma.verbs.SendFlags;
import org.urdma.verbs.SendWorkRequest;
import org.urdma.verbs.WcStatus;
import org.urdma.verbs.WorkCompletion;
import org.urdma.verbs.WrOpcode;

/**
 * RRCC through the engine: a 1 Gbit/s in-memory link with 2 ms RTT, WRITEs kept in flight. Fed per ACK by the
 * completer (delivered bytes and the AETH-EXT RTT) and by the receiver's loss reports (SACK-ETH loss byte), it finds
 * the bottleneck within 10 RTTs, and 1 % random loss does not cut its rate or the goodput below 90 % of it.
 */
class WanRrccTest {
    static final long MS = 1_000_000L;
    static final long START = 1_000_000_000L;
    static final double GBPS = 1.0;
    static final long ONE_WAY = MS;
    static final int MSG = 64 * 1024;
    /** Frame bytes of a 1 KiB WAN WRITE packet: Ethernet 14, IPv4 20, UDP 8, BTH 12, UETH 4, TS 8, RETH 16, payload, ICRC 4. */
    static final double PAYLOAD_SHARE = 1024.0 / (14 + 20 + 8 + 12 + 4 + 8 + 16 + 1024 + 4);
    static final double CAPACITY_BPS = GBPS * 1e9 * PAYLOAD_SHARE;

    private static final class Run {
        Rrcc rrcc;
        long bottleneckAt10Rtts;
        double goodputBps;
        long minRateInSteadyState = Long.MAX_VALUE;
        long lossReports;
        SoftQp qa, qb;
    }

    private Run run(double loss, int flags) {
        return run(loss, flags, ONE_WAY);
    }

    /** {@code oneWay}: the link's latency each way; the run's clock stays in units of a 2 ms RTT. */
    private Run run(double loss, int flags, long oneWay) {
        Run out = new Run();
        DeviceConfig ca = DeviceConfig.named("a", 1).withLossRecovery(LossRecovery.sack());
        DeviceConfig cb = DeviceConfig.named("b", 2).withLossRecovery(LossRecovery.sack());
        MemoryLink[] ends = MemoryLink.pair(MemoryLink.Config.defaults().withLatency(oneWay).withGbps(GBPS).withSlots(4096),
                new LinkFraming(FramingKind.ROCE2, ca.mac(), ca.gid().toBytes()),
                new LinkFraming(FramingKind.ROCE2, cb.mac(), cb.gid().toBytes()),
                loss > 0 ? ImpairmentConfig.random(loss, 0, 0, 7) : ImpairmentConfig.none(), ImpairmentConfig.none());
        SoftDevice a = new SoftDevice(ca, ends[0], new SplittableRandom(1), START, EngineCounters.inMemory("a"), EventJournal.NONE);
        SoftDevice b = new SoftDevice(cb, ends[1], new SplittableRandom(2), START, EngineCounters.inMemory("b"), EventJournal.NONE);
        SimulatedDriver sim = new SimulatedDriver(START, a, b);
        ProtectionDomain pdA = a.allocPd();
        ProtectionDomain pdB = b.allocPd();
        CompletionQueue cqA = a.createCq(256, null);
        QueuePair qa = pdA.createQp(MemoryFabric.init(QpType.RC, cqA, 128));
        QueuePair qb = pdB.createQp(MemoryFabric.init(QpType.RC, b.createCq(256, null), 128));
        ((SoftQp) qa).policies(LossRecovery.sack(), RateControl.Factory.of("rrcc", () -> out.rrcc = new Rrcc(Rrcc.Config.defaults())));
        ((SoftQp) qa).wan(flags, 0, 0);
        ((SoftQp) qb).wan(flags, 0, 0);
        MemoryFabric.Connection c = MemoryFabric.Connection.defaults().withMtu(PathMtu.MTU_1024);
        MemoryFabric.bringUp(qa, b, qb.qpNum(), 100, 1, c);
        MemoryFabric.bringUp(qb, a, qa.qpNum(), 1, 100, c);
        MemoryRegion src = pdA.registerMemory(Arena.ofAuto().allocate(MSG), AccessFlags.LOCAL_WRITE);
        MemoryRegion dst = pdB.registerMemory(Arena.ofAuto().allocate(MSG), AccessFlags.ALL);
        SendWorkRequest wr = new SendWorkRequest().opcode(WrOpcode.RDMA_WRITE).flags(SendFlags.SIGNALED)
                .addSge(src, 0, MSG).remote(dst.address(), dst.rkey());
        WorkCompletion[] wc = new WorkCompletion[64];
        for (int i = 0; i < wc.length; i++) wc[i] = new WorkCompletion();
        int inFlight = 0;
        long completed = 0;
        long completedAtSteady = 0;
        long rtt = 2 * ONE_WAY;
        long steadyFrom = START + 40 * rtt;
        long end = START + 150 * rtt;
        boolean sampled10 = false;
        while (sim.now() < end) {
            while (inFlight < 100) {
                qa.postSend(wr);
                inFlight++;
            }
            sim.runFor(100_000);
            int n;
            while ((n = cqA.poll(wc)) > 0) {
                for (int i = 0; i < n; i++) assertEquals(WcStatus.SUCCESS, wc[i].status);
                inFlight -= n;
                completed += n;
            }
            long now = sim.now();
            if (!sampled10 && now >= START + 10 * rtt) {
                sampled10 = true;
                out.bottleneckAt10Rtts = out.rrcc.bottleneckBps();
            }
            if (now >= steadyFrom) {
                if (completedAtSteady == 0) completedAtSteady = completed;
                out.minRateInSteadyState = Math.min(out.minRateInSteadyState, out.rrcc.bottleneckBps());
            }
        }
        out.goodputBps = (completed - completedAtSteady) * MSG * 8.0 / ((end - steadyFrom) / 1e9);
        out.qa = (SoftQp) qa;
        out.qb = (SoftQp) qb;
        return out;
    }

    private static final int WAN = OpcodeTable.UETH_TS | OpcodeTable.UETH_PER_PACKET_RETH | OpcodeTable.UETH_SACK;

    @Test
    void findsTheBottleneckWithinTenRtts() {
        Run r = run(0, WAN);
        String say = "bottleneck at 10 RTTs " + r.bottleneckAt10Rtts / 1e6 + " Mbit/s of " + CAPACITY_BPS / 1e6 + ", goodput "
                + r.goodputBps / 1e6;
        System.out.println("RRCC " + say);
        assertTrue(r.bottleneckAt10Rtts >= 0.9 * CAPACITY_BPS && r.bottleneckAt10Rtts <= 1.15 * CAPACITY_BPS, say);
        assertTrue(r.goodputBps >= 0.9 * CAPACITY_BPS, say);
    }

    @Test
    void onePercentRandomLossDoesNotCutItBelowNinetyPercent() {
        Run r = run(0.01, WAN);
        String say = "min bottleneck estimate " + r.minRateInSteadyState / 1e6 + " Mbit/s of " + CAPACITY_BPS / 1e6
                + ", goodput " + r.goodputBps / 1e6 + ", loss cuts " + r.rrcc.lossCuts();
        System.out.println("RRCC " + say);
        assertTrue(r.minRateInSteadyState >= 0.9 * CAPACITY_BPS, say);
        assertTrue(r.goodputBps >= 0.9 * CAPACITY_BPS, say);
    }

    @Test
    void fecAutoSizesGroupsFromTheReportedLossAndRepairsMostLosses() {
        Run r = run(0.01, WAN | OpcodeTable.UETH_FEC);
        long repaired = r.qb.counters().get(org.urdma.transport.counters.Counter.FEC_REPAIRED);
        String say = "group " + r.qa.fecTx.m() + "," + r.qa.fecTx.r() + ", goodput " + r.goodputBps / 1e6 + " Mbit/s, resent "
                + r.qa.stats().get(Counter.RETRANSMITTED_PKTS) + " (SACK " + r.qa.counters().get(org.urdma.transport.counters.Counter.SACK_RESENT_PKTS) + ", timeouts " + r.qa.stats().get(Counter.ACK_TIMEOUTS) + "), FEC repaired " + repaired + ", packets received " + r.qb.counters().get(org.urdma.transport.counters.Counter.RCVD_PKTS);
        System.out.println("FEC auto " + say);
        // 1 % loss: FecSizing's stripe of about 50 (m 150, r 3; the smoothed reports wander) instead of the clean path's 128,1
        int stripe = r.qa.fecTx.m() / r.qa.fecTx.r();
        assertTrue(r.qa.fecTx.r() >= 2 && stripe >= 30 && stripe <= 80, say);
        assertTrue(repaired > r.qa.stats().get(Counter.RETRANSMITTED_PKTS), "FEC repairs most losses; " + say);
        assertTrue(r.goodputBps >= 0.8 * CAPACITY_BPS, say);
    }

    @Test
    void aMicrosecondPathDoesNotStallIt() {
        // RTT 4 us: ACKs (every 16 packets) come rarer than the RTT; rounds of one RTT held no delivery sample, the
        // estimate read 0 and the pacer's next send time went beyond any later rate change (goodput 0)
        Run r = run(0, WAN, 2_000);
        String say = "goodput " + r.goodputBps / 1e6 + " Mbit/s of " + CAPACITY_BPS / 1e6 + ", rate " + r.rrcc.rateBps() / 1e6;
        assertTrue(r.goodputBps >= 0.9 * CAPACITY_BPS, say);
    }

    @Test
    void heavyLossIsReportedAndCutsTheRate() {
        // 10 % loss: above RRCC's 2 % threshold, the receiver's reports must reach it (else it never cuts)
        Run r = run(0.10, WAN);
        assertTrue(r.rrcc.lossCuts() > 0, "RRCC heard the receiver's loss reports and cut; min estimate "
                + r.minRateInSteadyState / 1e6);
    }
}
