package org.urdma.transport.rate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * N:1 incast of DCQCN senders through a RED/ECN-marking queue (lossless, as with PFC): the flows, started at
 * different times, converge to fair shares and the queue settles between the marking thresholds.
 */
class DcqcnFairnessTest {
    @ParameterizedTest
    @ValueSource(ints = {2, 8})
    void incastSendersConvergeToFairSharesWithTheQueueBetweenTheRedThresholds(int n) {
        BottleneckModel m = new BottleneckModel();
        m.rateBps = 10_000_000_000L;
        m.senderRateBps = 10_000_000_000L;
        m.oneWayNanos = 4_000;
        m.mtu = 1000;
        m.kminBytes = 5_000;
        m.kmaxBytes = 200_000;
        m.pmax = 0.01;
        m.seed = Long.getLong("dcqcn.seed", 42);
        RateControl.Factory f = RateControl.named(System.getProperty("dcqcn.spec", "dcqcn:line=10g"));
        for (int i = 0; i < n; i++) m.add(f.create(), i * 1_000_000L);
        // ns3-rdma's defaults (RPTimer 1.5 ms) converge 8 flows in about a second of simulated time
        long end = Long.getLong("dcqcn.end", 1_500_000_000L);
        m.run(end, end / 2);
        StringBuilder rates = new StringBuilder();
        for (BottleneckModel.Flow fl : m.flows) rates.append(String.format(" %.2f", fl.windowDelivered * 8.0 / (end / 2)));
        String what = String.format("jain %.4f, goodput %.2f Gbit/s, mean queue %.0f B, max %d B, above kmax %.3f%%, flows (Gbit/s):%s",
                m.jain(), m.goodputBps() / 1e9, m.meanQueueInWindow(), m.maxQueueInWindow, 100.0 * m.timeAboveKmax / (end / 2), rates);
        System.out.println(n + ":1 " + what);
        assertTrue(m.jain() >= 0.99, what);
        assertTrue(m.meanQueueInWindow() > m.kminBytes && m.meanQueueInWindow() < m.kmaxBytes, what);
        assertTrue(m.timeAboveKmax < end / 2 / 100, "queue above kmax more than 1% of the time: " + what);
        assertTrue(m.goodputBps() > 0.9 * m.rateBps, what);
        assertEquals(0, m.drops);
    }
}
