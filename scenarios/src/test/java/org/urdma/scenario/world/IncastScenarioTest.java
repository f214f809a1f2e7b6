package org.urdma.scenario.world;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * DCQCN incast of real RC QPs through the simulated switch, CI form: with PFC, 2:1 and 8:1 converge to fair shares
 * over the last half, the bottleneck queue stays between the RED thresholds, and nothing is dropped.
 */
class IncastScenarioTest {
    @ParameterizedTest
    @ValueSource(ints = {2, 8})
    void dcqcnFlowsConvergeToFairSharesWithTheQueueBetweenTheRedThresholdsAndNoDropsUnderPfc(int senders) {
        Incast.Options o = Incast.Options.quick(senders).withPfc(true);
        List<Incast.Run> runs = Incast.runs(o);
        String table = Incast.table(o, runs).text();
        System.out.print(table);
        Incast.Run r = runs.get(0);
        assertTrue(r.jain() >= 0.99, "Jain over the last half: " + table);
        assertTrue(r.goodputGbps() > 0.85 * o.rateBps() / 1e9 * 1024 / 1100, "the bottleneck stays busy: " + table);
        assertTrue(r.meanQueueBytes() > o.kminBytes() && r.meanQueueBytes() < o.kmaxBytes(), "mean queue: " + table);
        assertTrue(r.fractionAboveKmax() < 0.01, "queue above kmax at most 1 % of the time: " + table);
        assertEquals(0, r.drops(), table);
        assertEquals(0, r.errors(), table);
        assertTrue(r.cnps() > 0, "the receiver sent CNPs: " + table);
    }
}
