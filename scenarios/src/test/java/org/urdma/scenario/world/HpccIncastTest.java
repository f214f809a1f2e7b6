package org.urdma.scenario.world;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * N:1 incast of real RC QPs at 100 Gbit/s through the simulated switch, HPCC against DCQCN in the same world (PFC on,
 * RED at HPCC's run.py settings for 100 Gbit/s: Kmin 400 KB, Kmax 1600 KB, Pmax 0.2). The senders start 100 µs apart;
 * the last half of 4 ms is measured.
 * <p>The bound on HPCC's queue: it drives the bottleneck's U = txRate / B + qlen / (B T) to η, so with the link
 * saturated (txRate = B) any standing queue makes U &gt; 1 &gt; η and rates fall until it drains; what remains is
 * (1 - η) B T of headroom the additive steps may spend, one frame per sender arriving together, and the frames the
 * switch model holds in its forwarding pipeline (300 ns at B), which its queue counts:
 * queue &lt;= B d_pipe + (1 - η) B T + N frame = 3750 + 3125 + N × 1126 bytes (T = 5 µs, this world's base RTT).
 */
class HpccIncastTest {
    static final long RATE = 100_000_000_000L;
    /** Ethernet 14, IPv4 20, UDP 8, BTH 12, 1024 payload, INT stack 44, ICRC 4. */
    static final long FRAME = 1126;
    static final double ETA = 0.95;
    static final long BASE_RTT_NS = 5_000;
    static final String HPCC = "hpcc:rtt=5";

    static Incast.Options options(int senders, String cc, long durationNs) {
        return new Incast.Options(senders, RATE, cc, 64 * 1024, 8_000_000, 400_000, 1_600_000, 0.2, durationNs,
                100_000L, 200_000L, 1_000, new boolean[] {true}, 1);
    }

    static long queueBound(int senders) {
        long pipeline = 300 * RATE / 8 / 1_000_000_000L;
        long headroom = Math.round((1 - ETA) * RATE / 8.0 * BASE_RTT_NS * 1e-9);
        return pipeline + headroom + senders * FRAME;
    }

    @ParameterizedTest
    @ValueSource(ints = {2, 8})
    void hpccKeepsTheQueueNearZeroAtFullUtilisationWhereDcqcnBuildsAStandingQueue(int senders) {
        Incast.Options h = options(senders, HPCC, 4_000_000L);
        Incast.Run hpcc = Incast.run(h, true);
        Incast.Options d = options(senders, "dcqcn", 4_000_000L);
        Incast.Run dcqcn = Incast.run(d, true);
        String table = Incast.table(h, List.of(hpcc)).text() + Incast.table(d, List.of(dcqcn)).text();
        System.out.print(table);
        long bound = queueBound(senders);
        assertTrue(hpcc.maxQueueBytes() <= bound, "HPCC's queue within " + bound + " bytes: " + table);
        assertTrue(hpcc.utilisation() >= 0.95, "HPCC keeps the bottleneck >= 95 % busy: " + table);
        assertEquals(0, hpcc.pfcFrames(), "no PFC pause under HPCC: " + table);
        assertEquals(0, hpcc.drops(), table);
        assertEquals(0, hpcc.errors(), table);
        assertTrue(dcqcn.meanQueueBytes() > bound, "DCQCN's standing queue exceeds HPCC's bound: " + table);
        assertTrue(dcqcn.meanQueueBytes() > 5 * hpcc.meanQueueBytes(), "DCQCN's queue is larger than HPCC's: " + table);
    }

    @Test
    void theSameSeedGivesTheSameRun() {
        Incast.Options o = options(2, HPCC, 1_000_000L);
        String a = Incast.table(o, Incast.runs(o)).text() + Incast.seriesCsv(Incast.runs(o));
        String b = Incast.table(o, Incast.runs(o)).text() + Incast.seriesCsv(Incast.runs(o));
        assertEquals(a, b);
        assertTrue(a.contains("hpcc"), a);
    }
}
