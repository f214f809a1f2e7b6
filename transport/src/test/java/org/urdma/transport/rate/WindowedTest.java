package org.urdma.transport.rate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** The {@code +w} variants: an in-flight window of line × RTT, scaled by the current rate (HPCC's VAR_WIN). */
class WindowedTest {
    @Test
    void theWindowIsTheBandwidthDelayProductAndShrinksWithTheRate() {
        RateControl w = RateControl.named("dctcp+w:line=10g,rtt=8").create();
        assertEquals("dctcp+w", w.name());
        assertEquals(10_000, w.windowBytes(), "10 Gbit/s × 8 µs");
        w.onCongestion(CongestionSignal.CNP, 0); // alpha 1: rate halves
        assertEquals(5_000, w.windowBytes(), "window × rate / line");
    }

    @Test
    void aFixedWindowIgnoresTheRateAndWinOverridesTheProduct() {
        RateControl w = RateControl.named("dcqcn+w:line=10g,win=64000,vwin=false").create();
        w.onCongestion(CongestionSignal.CNP, 0);
        assertEquals(64_000, w.windowBytes());
        assertEquals(Math.round(100e9 / 8 * 13e-6), RateControl.named("timely+w").create().windowBytes(), "default: 100 Gbit/s × 13 µs");
    }

    @Test
    void unwindowedPoliciesLeaveTheWindowOpen() {
        assertEquals(Long.MAX_VALUE, RateControl.named("dctcp").create().windowBytes());
        assertEquals(Long.MAX_VALUE, RateControl.named("dcqcn").create().windowBytes());
    }

    @Test
    void aBadWindowOptionOrBaseIsNamed() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> RateControl.named("rrcc+w"));
        assertTrue(e.getMessage().contains("rrcc+w"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> RateControl.named("dcqcn+w:rtt=x"));
        assertTrue(e.getMessage().contains("rtt"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> RateControl.named("timely+w:foo=1"));
        assertTrue(e.getMessage().contains("foo"), e.getMessage());
    }
}
