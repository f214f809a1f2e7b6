package org.urdma.scenario.world;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * 2:1 incast of real RC QPs through the simulated switch with TIMELY and DCTCP (and their windowed variants), as
 * {@link IncastScenarioTest} runs DCQCN: the second flow starts 1 ms after the first, and over the last half of 8 ms
 * of simulated time both have fair shares with the bottleneck busy, under PFC and without drops.
 */
class TimelyDctcpIncastTest {
    static final long RATE = 10_000_000_000L;

    /** DCTCP marks at a step (run.py: Kmin = Kmax, 30 KB per 10 Gbit/s); TIMELY needs no marks, so none are made. */
    static Incast.Options options(String cc) {
        boolean dctcp = cc.startsWith("dctcp");
        long kmin = dctcp ? 30_000 : 900_000;
        long kmax = kmin + 1;
        return new Incast.Options(2, RATE, cc, 16 * 1024, 1_000_000, kmin, kmax, 1.0, 8_000_000L, 1_000_000L, 500_000L,
                10_000, new boolean[] {true}, 1);
    }

    @ParameterizedTest
    @ValueSource(strings = {"timely", "timely+w:rtt=24", "dctcp", "dctcp+w:rtt=24"})
    void twoFlowsConvergeToFairSharesWithTheBottleneckBusyAndNoDrops(String cc) {
        Incast.Options o = options(cc);
        List<Incast.Run> runs = Incast.runs(o);
        String table = Incast.table(o, runs).text();
        System.out.print(table);
        Incast.Run r = runs.get(0);
        assertTrue(r.jain() >= 0.99, "Jain over the last half: " + table);
        assertTrue(r.goodputGbps() > 0.85 * RATE / 1e9 * 1024 / 1100, "the bottleneck stays busy: " + table);
        assertEquals(0, r.drops(), table);
        assertEquals(0, r.errors(), table);
        if (cc.startsWith("dctcp")) assertTrue(r.cnps() > 0, "the receiver echoed marks: " + table);
    }
}
