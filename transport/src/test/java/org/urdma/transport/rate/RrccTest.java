package org.urdma.transport.rate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class RrccTest {
    static final long RTT = 20_000_000;
    static final int MTU = 4096;

    static BottleneckModel path(long rateBps, double loss) {
        BottleneckModel m = new BottleneckModel();
        m.rateBps = rateBps;
        m.senderRateBps = 100_000_000_000L;
        m.oneWayNanos = RTT / 2;
        m.mtu = MTU;
        m.randomLoss = loss;
        m.bufferBytes = 4 * rateBps / 8 * RTT / 1_000_000_000L; // 4 BDP
        m.lossReportNanos = RTT;
        m.seed = 5;
        return m;
    }

    @ParameterizedTest
    @ValueSource(longs = {100_000_000L, 1_000_000_000L, 10_000_000_000L})
    void startupFindsA100MbitTo10GbitBottleneckWithinTenRtts(long c) {
        BottleneckModel m = path(c, 0);
        Rrcc r = new Rrcc(Rrcc.Config.defaults());
        m.add(r, 0);
        for (int k = 1; k <= 10; k++) {
            m.run(k * RTT, 0);
            if (Boolean.getBoolean("rrcc.trace")) {
                System.out.printf("%d RTT: est %.3f rate %.3f sent %d queue %d %s%n", k, r.bottleneckBps() / 1e9, r.rateBps() / 1e9,
                        m.flows[0].sentBytes, m.queueBytes(), r.state());
            }
        }
        String what = String.format("C %.1f Gbit/s: estimate %.3f Gbit/s, state %s, rate %.3f Gbit/s after 10 RTTs",
                c / 1e9, r.bottleneckBps() / 1e9, r.state(), r.rateBps() / 1e9);
        System.out.println(what);
        assertTrue(r.bottleneckBps() >= 0.9 * c && r.bottleneckBps() <= 1.1 * c, what);
        assertTrue(r.state() != Rrcc.State.STARTUP || r.bottleneckBps() >= 0.9 * c, what);
        // and it settles: the next 40 RTTs deliver at least 90 % of the bottleneck
        m.run(50 * RTT, 10 * RTT);
        assertTrue(m.goodputBps() >= 0.9 * c, String.format("goodput %.3f Gbit/s, state %s", m.goodputBps() / 1e9, r.state()));
    }

    @Test
    void withAReferenceRateTheFirstRttAlreadySendsAtIt() {
        long c = 1_000_000_000L;
        BottleneckModel with = path(c, 0);
        with.add(RateControl.named("rrcc:ref=1g").create(), 0);
        with.run(RTT, 0);
        BottleneckModel without = path(c, 0);
        without.add(RateControl.named("rrcc").create(), 0);
        without.run(RTT, 0);
        double bdp = c / 8.0 * RTT / 1e9;
        double sentWith = with.flows[0].sentBytes;
        double sentWithout = without.flows[0].sentBytes;
        assertTrue(sentWith >= 0.99 * bdp && sentWith <= 1.01 * bdp + MTU, "first RTT sent " + sentWith + " of " + bdp);
        assertTrue(sentWithout < 0.2 * bdp, "without ref, startup begins at 100 Mbit/s: " + sentWithout);
    }

    @Test
    void randomOnePercentLossNeverCutsTheRateBelowNinetyPercentOfTheBottleneck() {
        long c = 1_000_000_000L;
        BottleneckModel m = path(c, 0.01);
        Rrcc r = new Rrcc(Rrcc.Config.defaults());
        m.add(r, 0);
        m.run(30 * RTT, 30 * RTT);
        long cutsInStartup = r.lossCuts(); // startup's overshoot overflows the buffer: real congestion
        long minEstimate = Long.MAX_VALUE;
        long minRate = Long.MAX_VALUE;
        long end = 300 * RTT;
        for (long t = 30 * RTT; t < end; t += RTT / 10) {
            m.run(t, 30 * RTT);
            minEstimate = Math.min(minEstimate, r.bottleneckBps());
            if (r.state() == Rrcc.State.PROBE_BW && r.rateBps() < r.bottleneckBps() * 0.9) continue; // the 0.75 phase
            minRate = Math.min(minRate, r.rateBps());
        }
        m.run(end, 30 * RTT);
        String what = String.format("min estimate %.3f, min rate %.3f, goodput %.3f Gbit/s, drops %d, loss cuts %d",
                minEstimate / 1e9, minRate / 1e9, m.goodputBps() / 1e9, m.drops, r.lossCuts());
        System.out.println("1 % loss: " + what);
        assertTrue(m.drops > 1000, what);
        assertEquals(cutsInStartup, r.lossCuts(), what);
        assertTrue(minEstimate >= 0.9 * c, what);
        assertTrue(minRate >= 0.9 * c, what);
        assertTrue(m.goodputBps() >= 0.9 * c * 0.99 - 1, what);
    }

    /** Steady sends and ACKs for {@code bps} from {@code from} to {@code to}, one per MTU, with RTT {@code rtt}. */
    static long feed(Rrcc r, long from, long to, long bps, long rtt) {
        long gap = MTU * 8_000_000_000L / bps;
        long t = from;
        for (; t < to; t += gap) {
            r.onSent(MTU, t);
            r.onAck(MTU, rtt, t);
        }
        return t;
    }

    @Test
    void probeBandwidthCyclesGainsOverEightRoundsAndLossAboveTheThresholdCutsProportionally() {
        Rrcc r = new Rrcc(Rrcc.Config.parse("ref=1g,floor=0"));
        long rtt = 1_000_000;
        long t = feed(r, 0, 3 * rtt, 1_000_000_000L, rtt);
        java.util.List<Long> rates = new java.util.ArrayList<>();
        for (int round = 0; round < 16; round++) {
            t = feed(r, t, t + rtt, 1_000_000_000L, rtt);
            rates.add(r.rateBps() / 10_000_000);
        }
        assertEquals(2, rates.stream().filter(v -> v == 125).count(), rates.toString());
        assertEquals(2, rates.stream().filter(v -> v == 75).count(), rates.toString());
        int i = rates.indexOf(125L);
        assertEquals(125L, rates.get(i + 8), "cycle of 8 rounds: " + rates);
        assertEquals(75L, rates.get(i + 1), rates.toString());
        long before = r.bottleneckBps();
        r.onLossRate(0.08, t);
        assertEquals(before, r.bottleneckBps(), "one report of 8 %: average 2 %, at the threshold: no cut");
        r.onLossRate(0.08, t);
        double avg = 0.02 + 0.25 * (0.08 - 0.02);
        assertEquals(Math.round(before * (1 - avg)), r.bottleneckBps(), "a second one: cut by the 3.5 % average");
        assertEquals(1, r.lossCuts());
    }

    @Test
    void theRateNeverFallsBelowTheFloorDerivedFromTheReferenceRate() {
        Rrcc r = new Rrcc(Rrcc.Config.parse("ref=1g,floor=0.8"));
        long rtt = 1_000_000;
        long t = feed(r, 0, 3 * rtt, 1_000_000_000L, rtt);
        for (int i = 0; i < 10; i++) {
            r.onLossRate(0.5, t);
            t = feed(r, t, t + rtt, 200_000_000L, rtt); // the path delivers 200 Mbit/s
            // the drain phase of the probe-bandwidth cycle paces at 0.75 x the estimate, below the floor
            long min = r.rateBps() == Math.round(0.75 * r.bottleneckBps()) ? 600_000_000L : 800_000_000L;
            assertTrue(r.rateBps() >= min, "rate " + r.rateBps());
            assertTrue(r.bottleneckBps() >= 800_000_000L, "estimate " + r.bottleneckBps());
        }
        assertEquals(800_000_000L, r.bottleneckBps());
    }

    @Test
    void aBurstOfLateAcksIsNotTakenForAFasterBottleneck() {
        Rrcc r = new Rrcc(Rrcc.Config.parse("ref=1g"));
        long rtt = 1_000_000;
        long t = feed(r, 0, 3 * rtt, 1_000_000_000L, rtt);
        long paced = r.rateBps();
        // the ACKs of 2 ms of packets, held up by a stalled switch, arrive within half a round: 4 Gbit/s of ACKs
        for (long end = t + rtt / 2; t < end; t += MTU * 2) r.onAck(MTU, rtt, t);
        assertTrue(r.bottleneckBps() <= paced, "estimate " + r.bottleneckBps() + " after pacing at " + paced);
        assertTrue(r.rateBps() <= 1_250_000_000L, "rate " + r.rateBps());
    }

    @Test
    void atTheFloorAProbeBandwidthCycleAveragesTheFloorSoAReferenceRateAtTheBottleneckBuildsNoQueue() {
        Rrcc r = new Rrcc(Rrcc.Config.parse("ref=1g"));
        long rtt = 1_000_000;
        long t = feed(r, 0, 3 * rtt, 1_000_000_000L, rtt);
        double sum = 0;
        java.util.List<Long> rates = new java.util.ArrayList<>();
        for (int round = 0; round < 16; round++) {
            t = feed(r, t, t + rtt, 1_000_000_000L, rtt);
            rates.add(r.rateBps() / 10_000_000);
            sum += r.rateBps();
        }
        assertEquals(2, rates.stream().filter(v -> v == 75).count(), "the drain phase: " + rates);
        assertEquals(1.0, sum / 16 / 1e9, 1e-9, "two cycles average the reference rate: " + rates);
    }

    @Test
    void aStaleMinRttIsProbedAtAReducedRateAndMeasuredAgain() {
        Rrcc r = new Rrcc(Rrcc.Config.parse("ref=1g,floor=0,probeRttInterval=100,probeRttTime=20"));
        long rtt = 1_000_000;
        long t = feed(r, 0, 50 * rtt, 1_000_000_000L, rtt);
        assertEquals(Rrcc.State.PROBE_BW, r.state());
        t = feed(r, t, 149 * rtt, 1_000_000_000L, 2 * rtt); // queueing: the RTT doubled, min RTT not refreshed
        assertEquals(Rrcc.State.PROBE_BW, r.state(), "min RTT seen at 50 ms: still fresh at 149 ms");
        t = feed(r, t, 152 * rtt, 1_000_000_000L, 2 * rtt);
        assertEquals(Rrcc.State.PROBE_RTT, r.state());
        assertEquals(Math.round(0.5 * r.bottleneckBps()), r.rateBps());
        t = feed(r, t, t + 25 * rtt, 500_000_000L, 3 * rtt / 2); // the path got longer: 1.5 ms
        assertEquals(Rrcc.State.PROBE_BW, r.state());
        assertEquals(3 * rtt / 2, r.minRttNanos());
    }

    static final long MS = 1_000_000;
    /** A veth pair's min RTT: far below the 1 ms shortest round. */
    static final long VETH_RTT = 500;

    @Test
    void onASubMicrosecondPathLossReportsEveryHundredMicrosecondsCutOnceARound() {
        Rrcc r = new Rrcc(Rrcc.Config.parse("ref=1g,floor=0"));
        long t = feed(r, 0, 20 * MS, 1_000_000_000L, VETH_RTT);
        long cutAt = t;
        for (int i = 0; i < 7; i++) { // seven reports of 10 % within one round (1 ms): one cut
            r.onLossRate(0.1, t);
            t = feed(r, t, t + MS / 10, 1_000_000_000L, VETH_RTT);
        }
        assertTrue(t - cutAt < MS, "the reports fall within one round");
        assertEquals(1, r.lossCuts(), "cuts within one round");
        t = feed(r, t, cutAt + 2 * MS, 1_000_000_000L, VETH_RTT);
        r.onLossRate(0.1, t); // a round later (its time and its BDP delivered): the next may cut
        assertEquals(2, r.lossCuts());
    }

    @Test
    void withoutAReferenceRateCutsStopAtFourPacketsPerRound() {
        Rrcc r = new Rrcc(Rrcc.Config.defaults());
        long t = feed(r, 0, 50 * MS, 1_000_000_000L, VETH_RTT);
        assertTrue(r.state() != Rrcc.State.STARTUP, "past startup: " + r.state());
        long minRate = Long.MAX_VALUE;
        for (int ms = 0; ms < 2000; ms++) { // the path delivers a packet every 8 ms and reports half of them lost
            t += MS;
            if (ms % 8 == 0) {
                r.onSent(MTU, t);
                r.onAck(MTU, VETH_RTT, t);
            }
            r.onLossRate(0.5, t);
            minRate = Math.min(minRate, r.rateBps());
        }
        long least = Rrcc.MIN_PACKETS_PER_ROUND * MTU * 8_000L; // per 1 ms round
        assertTrue(r.lossCuts() > 10, "cuts " + r.lossCuts());
        assertTrue(minRate >= least, "rate fell to " + minRate + " bit/s, least " + least);
    }

    @Test
    void onAShortPathAProbeMeasuresWhatItSentSoTheEstimateClimbsToTheBottleneck() {
        long c = 1_000_000_000L;
        BottleneckModel m = new BottleneckModel();
        m.rateBps = c;
        m.senderRateBps = 100_000_000_000L;
        m.oneWayNanos = 25_000; // RTT 50 us: a probe's ACKs come back within its 1 ms round
        m.mtu = MTU;
        Rrcc r = new Rrcc(Rrcc.Config.parse("ref=100m,floor=0")); // an estimate 10 x too low, as after cuts
        m.add(r, 0);
        m.run(300 * MS, 200 * MS);
        String what = String.format("estimate %.3f Gbit/s, goodput %.3f Gbit/s over the last 100 ms", r.bottleneckBps() / 1e9,
                m.goodputBps() / 1e9);
        assertTrue(r.bottleneckBps() >= 0.8 * c, what);
        assertTrue(m.goodputBps() >= 0.8 * c, what);
    }

    @Test
    void optionsAreParsedByNameAndBadOnesRefused() {
        Rrcc.Config c = Rrcc.Config.parse("ref=10g,floor=0.9,lossThreshold=0.05");
        assertEquals(10_000_000_000L, c.refBps());
        assertEquals(0.9, c.floor());
        assertEquals(0.05, c.lossThreshold());
        assertEquals("rrcc", RateControl.named("rrcc:ref=2.5g").name());
        assertTrue(assertThrows(IllegalArgumentException.class, () -> RateControl.named("rrcc:floor=2"))
                .getMessage().contains("floor"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> RateControl.named("rrcc:reff=1g"))
                .getMessage().contains("reff"));
    }

    @ParameterizedTest
    @ValueSource(strings = {"max=1g", "ref=500m,max=1g", "ref=1g,max=1g"})
    void thePacedRateNeverExceedsTheCapOnAPathTenTimesFaster(String options) {
        long cap = 1_000_000_000L;
        BottleneckModel m = path(10 * cap, 0.001); // startup, probes and late-ACK bursts would all take it above the cap
        Rrcc r = new Rrcc(Rrcc.Config.parse(options));
        assertTrue(r.rateBps() <= cap, options + ": starts at " + r.rateBps());
        m.add(r, 0);
        long maxRate = 0;
        for (long t = RTT / 10; t <= 60 * RTT; t += RTT / 10) {
            m.run(t, 10 * RTT);
            maxRate = Math.max(maxRate, r.rateBps());
        }
        assertTrue(maxRate <= cap, options + ": paced at " + maxRate + " bit/s");
        // the cap is what it delivers, not a rate it hovers far under (from ref=500m it climbs there by probes)
        assertTrue(m.goodputBps() <= 1.01 * cap && m.goodputBps() >= 0.85 * cap, options + ": goodput " + m.goodputBps());
    }

    @Test
    void withoutACapTheSamePathIsTakenAboveIt() {
        BottleneckModel m = path(10_000_000_000L, 0.001);
        Rrcc r = new Rrcc(Rrcc.Config.parse(""));
        m.add(r, 0);
        m.run(60 * RTT, 10 * RTT);
        assertTrue(m.goodputBps() > 2e9, "goodput " + m.goodputBps());
        assertEquals(3_000_000_000L, Rrcc.Config.parse("max=3g").maxBps());
    }
}
