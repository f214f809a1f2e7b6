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
            int r = Math.min(32, (128 + k - 1) / k);
            int m = Math.min(255, r * k);
            double overhead = (double) r / m;
            assertTrue(r >= lastR && overhead >= lastOverhead - 1e-12, "p " + p + ": r " + r + ", m " + m);
            lastR = r;
            lastOverhead = overhead;
        }
        assertEquals(128, s.stripeLength(0));
        assertEquals(128, s.stripeLength(0.0001));
        assertEquals(128, s.stripeLength(0.001));
        assertEquals(50, s.stripeLength(0.01));
        assertEquals(10, s.stripeLength(0.05));
        assertEquals(2, s.stripeLength(0.3));
        for (double p = 0.004; p <= 0.2; p += 0.0005) {
            assertTrue(1.0 / s.stripeLength(p) <= 2 * p + 1e-12, "parity stays within twice the loss rate at p " + p);
        }
    }

    @Test
    void lossReportsMoveTheGeometryWithSmoothingAndHysteresis() {
        FecSizing s = FecSizing.defaults();
        assertEquals(128, s.m());
        assertEquals(1, s.r());
        for (int i = 0; i < 30; i++) s.onLossRate(0.01);
        // the smoothed rate reaches 1 % from below: a stripe of 50 to 62 (within the quarter that noise may not move)
        assertEquals(3, s.r());
        assertTrue(s.m() / 3 >= 50 && s.m() / 3 <= 62, "m " + s.m());
        // noise around 1 % does not move it back and forth
        int changes = 0;
        for (int i = 0; i < 200; i++) changes += s.onLossRate(i % 2 == 0 ? 0.007 : 0.013) ? 1 : 0;
        assertTrue(changes <= 1, "changes " + changes);
        for (int i = 0; i < 40; i++) s.onLossRate(0);
        assertEquals(1, s.r(), "clean again: one parity per group");
    }
}
