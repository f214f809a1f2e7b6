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
import org.urdma.transport.impair.ImpairmentConfig;
import org.urdma.transport.journal.EventJournal;
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
 * A WAN-mode sender or receiver whose engine thread the OS deschedules, under a virtual clock: 20 ms RTT, a 1 Gbit/s
 * link whose serializer queues what comes faster (the bottleneck's queue), RRCC with the link's payload rate as its
 * reference rate as {@code scenario wan} runs it, and one engine not run for 20 ms of every 50 (frames queue on
 * its link, its timers and pacing deadlines pass unserved). The stall must cost no goodput the engine cannot make up,
 * no ACK timeout and no resend: kernel TCP rides such stalls out, and the WAN mode must too.
 */
class WanEngineStallTest {
    static final long MS = 1_000_000L;
    static final long START = 1_000_000_000L;
    /** The link's rate, and RRCC's reference rate: the link's serializer queues what comes faster (the bottleneck queue). */
    static final double GBPS = 1.0;
    static final long ONE_WAY = 10 * MS;
    static final int MSG = 64 * 1024;
    /** Frame bytes of a 4 KiB WAN WRITE packet: Ethernet 14, IPv4 20, UDP 8, BTH 12, UETH 4, TS 8, RETH 16, payload, ICRC 4. */
    static final double PAYLOAD_SHARE = 4096.0 / (14 + 20 + 8 + 12 + 4 + 8 + 16 + 4096 + 4);
    static final double CAPACITY_BPS = GBPS * 1e9 * PAYLOAD_SHARE;
    /** The ACK timeout the scenario picks at 20 ms: 4.096 us x 2^15 = 134 ms. */
    static final int TIMEOUT_CODE = 15;
    private static final int WAN = OpcodeTable.UETH_TS | OpcodeTable.UETH_PER_PACKET_RETH | OpcodeTable.UETH_SACK;

    private record Run(double goodputBps, long timeouts, long resent, long lossCuts) {
        String say() {
            return String.format(java.util.Locale.ROOT, "goodput %.1f of %.1f Mbit/s, ACK timeouts %d, resent %d, loss cuts %d",
                goodputBps / 1e6, CAPACITY_BPS / 1e6, timeouts, resent, lossCuts);
        }
    }

    /** {@code stalled}: 0 none, 1 the sender's engine, 2 the receiver's; stalled for {@code stallMs} of every 50 ms. */
    private Run run(int stalled, long stallMs) {
        DeviceConfig ca = DeviceConfig.named("a", 1).withLossRecovery(LossRecovery.sack());
        DeviceConfig cb = DeviceConfig.named("b", 2).withLossRecovery(LossRecovery.sack());
        MemoryLink[] ends = MemoryLink.pair(MemoryLink.Config.defaults().withLatency(ONE_WAY).withGbps(GBPS).withSlots(8192),
                new LinkFraming(FramingKind.ROCE2, ca.mac(), ca.gid().toBytes()),
                new LinkFraming(FramingKind.ROCE2, cb.mac(), cb.gid().toBytes()), ImpairmentConfig.none(), ImpairmentConfig.none());
        SoftDevice a = new SoftDevice(ca, ends[0], new SplittableRandom(1), START, EngineCounters.inMemory("a"), EventJournal.NONE);
        SoftDevice b = new SoftDevice(cb, ends[1], new SplittableRandom(2), START, EngineCounters.inMemory("b"), EventJournal.NONE);
        SimulatedDriver sim = new SimulatedDriver(START, a, b);
        ProtectionDomain pdA = a.allocPd();
        ProtectionDomain pdB = b.allocPd();
        CompletionQueue cqA = a.createCq(1024, null);
        QueuePair qa = pdA.createQp(MemoryFabric.init(QpType.RC, cqA, 512));
        QueuePair qb = pdB.createQp(MemoryFabric.init(QpType.RC, b.createCq(1024, null), 512));
        Rrcc[] rrcc = new Rrcc[1];
        long ref = Math.round(CAPACITY_BPS);
        ((SoftQp) qa).policies(LossRecovery.sack(), RateControl.Factory.of("rrcc",
                () -> rrcc[0] = new Rrcc(Rrcc.Config.parse("ref=" + ref))));
        ((SoftQp) qa).wan(WAN, 0, 0);
        ((SoftQp) qb).wan(WAN, 0, 0);
        MemoryFabric.Connection c = MemoryFabric.Connection.defaults().withMtu(PathMtu.MTU_4096).withTimeout(TIMEOUT_CODE).withRetryCnt(7);
        MemoryFabric.bringUp(qa, b, qb.qpNum(), 100, 1, c);
        MemoryFabric.bringUp(qb, a, qa.qpNum(), 1, 100, c);
        MemoryRegion src = pdA.registerMemory(Arena.ofAuto().allocate(MSG), AccessFlags.LOCAL_WRITE);
        MemoryRegion dst = pdB.registerMemory(Arena.ofAuto().allocate(MSG), AccessFlags.ALL);
        SendWorkRequest wr = new SendWorkRequest().opcode(WrOpcode.RDMA_WRITE).flags(SendFlags.SIGNALED)
                .addSge(src, 0, MSG).remote(dst.address(), dst.rkey());
        WorkCompletion[] wc = new WorkCompletion[64];
        for (int i = 0; i < wc.length; i++) wc[i] = new WorkCompletion();
        SoftDevice victim = stalled == 1 ? a : stalled == 2 ? b : null;
        int inFlight = 0;
        long completed = 0;
        long completedAtSteady = -1;
        long steadyFrom = START + 200 * MS;
        long end = START + 1200 * MS;
        long nextStall = START + 100 * MS;
        while (sim.now() < end) {
            while (inFlight < 400) {
                qa.postSend(wr);
                inFlight++;
            }
            if (victim != null && sim.now() >= nextStall) {
                sim.pause(victim, nextStall + stallMs * MS);
                nextStall += 50 * MS;
            }
            sim.runFor(100_000);
            int n;
            while ((n = cqA.poll(wc)) > 0) {
                for (int i = 0; i < n; i++) assertEquals(WcStatus.SUCCESS, wc[i].status);
                inFlight -= n;
                completed += n;
            }
            if (completedAtSteady < 0 && sim.now() >= steadyFrom) completedAtSteady = completed;
        }
        SoftQp sa = (SoftQp) qa;
        return new Run((completed - completedAtSteady) * MSG * 8.0 / ((end - steadyFrom) / 1e9),
                sa.counters().get(Counter.ACK_TIMEOUTS), sa.counters().get(Counter.RETRANSMITTED_PKTS), rrcc[0].lossCuts());
    }

    @Test
    void aQuietPathRunsAtItsRate() {
        Run r = run(0, 0);
        assertTrue(r.goodputBps() >= 0.97 * CAPACITY_BPS, r.say());
        assertEquals(0, r.resent(), r.say());
    }

    @Test
    void aSenderEngineDescheduledForTwentyMillisecondsOfFiftyMakesUpWhatItMissed() {
        // the bottleneck drains its queue while the sender sleeps; making up only the pacer's usual 256 KiB (2 ms) of
        // lateness afterwards left the queue emptier after each stall, until the link idled through them (0.90 of it)
        Run r = run(1, 20);
        assertTrue(r.goodputBps() >= 0.95 * CAPACITY_BPS, r.say());
        assertEquals(0, r.timeouts(), r.say());
        assertEquals(0, r.resent(), r.say());
    }

    @Test
    void aReceiverEngineDescheduledForTwentyMillisecondsOfFiftyCostsNoTimeoutNorResend() {
        // its ACKs come a stall late and in a burst, its RTT samples spike by the stall: neither is loss nor congestion
        Run r = run(2, 20);
        assertTrue(r.goodputBps() >= 0.95 * CAPACITY_BPS, r.say());
        assertEquals(0, r.timeouts(), r.say());
        assertEquals(0, r.resent(), r.say());
        assertEquals(0, r.lossCuts(), r.say());
    }
}
