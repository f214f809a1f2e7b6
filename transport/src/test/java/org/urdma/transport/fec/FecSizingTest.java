package org.urdma.transport.fec;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class FecSizingTest {
    @Test
    void parityPerGroupAndOverheadGrowWithTheLossRateAndStayLowOnACleanPath() {
        FecSizing s = FecSizing.defaults();
        int lastR = 0;
        double lastOverhead = 0;
        for (double p = 0; p <= 0.2; p += 0.0005) {
            int k = s.stripeLength(p);
            int r = Math.min(32, (64 + k - 1) / k);
            int m = Math.min(255, r * k);
            double overhead = (double) r / m;
            assertTrue(r >= lastR && overhead >= lastOverhead - 1e-12, "p " + p + ": r " + r + ", m " + m);
            lastR = r;
            lastOverhead = overhead;
        }
        assertEquals(64, s.stripeLength(0.0001));
        assertEquals(64, s.stripeLength(0.001));
        assertEquals(10, s.stripeLength(0.01));
        assertEquals(2, s.stripeLength(0.05));
    }

    @Test
    void lossReportsMoveTheGeometryWithSmoothingAndHysteresis() {
        FecSizing s = FecSizing.defaults();
        assertEquals(64, s.m());
        assertEquals(1, s.r());
        for (int i = 0; i < 30; i++) s.onLossRate(0.01);
        assertEquals(70, s.m());
        assertEquals(7, s.r());
        // noise around 1 % does not move it back and forth
        int changes = 0;
        for (int i = 0; i < 200; i++) changes += s.onLossRate(i % 2 == 0 ? 0.007 : 0.013) ? 1 : 0;
        assertTrue(changes <= 1, "changes " + changes);
        for (int i = 0; i < 40; i++) s.onLossRate(0);
        assertEquals(1, s.r(), "clean again: one parity per group");
    }
}
