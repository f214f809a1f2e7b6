package org.urdma.transport.rate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class DcqcnTest {
    static final long LINE = 10_000_000_000L;
    static final double G = 1.0 / 256;

    /** Defaults, byte counter off: HPCC's timer-only staging. */
    static Dcqcn timerOnly() {
        Dcqcn.Config d = Dcqcn.Config.defaults(LINE);
        return new Dcqcn(new Dcqcn.Config(LINE, d.minRateBps(), d.g(), 1.0, false, d.rpTimerNanos(), 5,
                d.alphaResumeIntervalNanos(), d.rateDecreaseIntervalNanos(), d.rateAiBps(), d.rateHaiBps(), 0));
    }

    @Test
    void aQpRunsAtTheLineRateUntilItsFirstCnpWhichSetsAlphaToOneAndHalvesTheRate() {
        Dcqcn d = timerOnly();
        assertEquals(LINE, d.rateBps());
        d.onSent(1000, 0);
        assertEquals(800, d.nextSendTime(0), "1000 B at 10 Gbit/s");
        d.onCongestion(CongestionSignal.CNP, 1_000);
        assertEquals(1.0, d.alpha());
        assertEquals(LINE / 2, d.rateBps(), "cut by alpha / 2 = 1/2");
        assertEquals(LINE, d.targetRateBps(), "no increase since the last cut: target not clamped");
        assertEquals(1_600, d.nextSendTime(1_000), "the cut re-times the packet in flight");
    }

    @Test
    void eachCutIsAlphaHalfOfTheRateWithAlphaFromItsEwma() {
        Dcqcn d = timerOnly();
        d.onCongestion(CongestionSignal.CNP, 0);
        d.onCongestion(CongestionSignal.CNP, 10_000); // alpha still 1 (first update at 55 µs)
        assertEquals(LINE / 4, d.rateBps());
        // 55 µs: a CNP came in the interval -> (1-g)·1 + g = 1; 110 and 165 µs: quiet -> (1-g)^2
        long before = d.rateBps();
        d.onCongestion(CongestionSignal.CNP, 200_000);
        double alpha = Math.pow(1 - G, 2);
        assertEquals(alpha, d.alpha(), 1e-15);
        assertEquals(Math.round(before * (1 - alpha / 2)), d.rateBps());
    }

    @Test
    void alphaDecaysByOneMinusGPerQuietIntervalWhetherPolledOftenOrOnce() {
        Dcqcn often = timerOnly();
        Dcqcn once = timerOnly();
        often.onCongestion(CongestionSignal.CNP, 0);
        once.onCongestion(CongestionSignal.CNP, 0);
        for (long t = 0; t <= 100 * 55_000L; t += 1_000) often.nextSendTime(t);
        once.nextSendTime(100 * 55_000L);
        assertEquals(Math.pow(1 - G, 100), often.alpha(), 1e-12);
        assertEquals(often.alpha(), once.alpha(), 1e-12);
    }

    @Test
    void cnpsCloserThanTheRateDecreaseIntervalCutOncePerInterval() {
        Dcqcn d = timerOnly();
        d.onCongestion(CongestionSignal.CNP, 0);
        d.onCongestion(CongestionSignal.CNP, 1_000);
        d.onCongestion(CongestionSignal.CNP, 2_000);
        assertEquals(1, d.decreases(), "inside 4 µs of the first cut");
        d.nextSendTime(4_000);
        assertEquals(2, d.decreases(), "the pending CNPs cut once, 4 µs after the first cut");
        assertEquals(LINE / 4, d.rateBps());
    }

    @Test
    void timerTicksGoThroughFastRecoveryThenAdditiveThenHyperIncrease() {
        Dcqcn d = timerOnly();
        d.onCongestion(CongestionSignal.CNP, 0);
        long rate = LINE / 2;
        long target = LINE;
        d.onCongestion(CongestionSignal.CNP, 10_000); // target stays LINE (no increase yet), rate LINE/4
        rate = LINE / 4;
        long tick = 10_000 + 1_500_000;
        for (int i = 0; i < 5; i++) { // fast recovery: halfway to the target, target fixed
            d.nextSendTime(tick + i * 1_500_000L);
            rate = (rate + target) / 2;
            assertEquals(rate, d.rateBps(), "fast recovery " + i);
            assertEquals(target, d.targetRateBps());
        }
        // cut again so the target is below the line and the increases show
        d.onCongestion(CongestionSignal.CNP, tick + 5 * 1_500_000L - 1);
        target = rate;
        rate = d.rateBps();
        long t0 = tick + 5 * 1_500_000L - 1;
        for (int i = 1; i <= 5; i++) {
            d.nextSendTime(t0 + i * 1_500_000L);
            rate = (rate + target) / 2;
        }
        assertEquals(rate, d.rateBps());
        d.nextSendTime(t0 + 6 * 1_500_000L);
        target += 5_000_000;
        rate = (rate + target) / 2;
        assertEquals(target, d.targetRateBps(), "6th tick: additive increase by rateAI");
        assertEquals(rate, d.rateBps());
        d.nextSendTime(t0 + 7 * 1_500_000L);
        target += 50_000_000;
        rate = (rate + target) / 2;
        assertEquals(target, d.targetRateBps(), "7th tick: hyper increase by rateHAI");
        assertEquals(rate, d.rateBps());
    }

    @Test
    void theByteCounterDrivesIncreasesAndHyperIncreaseNeedsTimerAndBytesPastF() {
        Dcqcn d = new Dcqcn(Dcqcn.Config.parse("line=10g,byteCounter=100000,rpTimer=1000000")); // timer: 1 s
        d.onCongestion(CongestionSignal.CNP, 0);
        for (int i = 0; i < 100; i++) d.onSent(1000, 1_000); // 100 KB: one byte event, fast recovery
        assertEquals(1, d.increases());
        assertEquals(7_500_000_000L, d.rateBps());
        d.onCongestion(CongestionSignal.CNP, 10_000); // after an increase the cut clamps the target to the rate
        assertEquals(7_500_000_000L, d.targetRateBps());
        assertEquals(3_750_000_000L, d.rateBps());
        for (int i = 0; i < 500; i++) d.onSent(1000, 20_000); // byte events b = 0..4: fast recovery
        assertEquals(6, d.increases());
        assertEquals(7_500_000_000L, d.targetRateBps());
        for (int i = 0; i < 200; i++) d.onSent(1000, 20_000); // b = 5, 6 with t = 0: additive, never hyper
        assertEquals(7_510_000_000L, d.targetRateBps());
        for (int k = 1; k <= 6; k++) d.nextSendTime(10_000 + k * 1_000_000_000L); // t = 0..5: additive
        assertEquals(7_540_000_000L, d.targetRateBps());
        d.nextSendTime(10_000 + 7 * 1_000_000_000L); // t = 6 and b = 7, both past F: hyper
        assertEquals(7_590_000_000L, d.targetRateBps());
    }

    @Test
    void theRateNeverFallsBelowMinRate() {
        Dcqcn d = new Dcqcn(Dcqcn.Config.parse("line=10g,minRate=1g"));
        for (int i = 0; i < 100; i++) d.onCongestion(CongestionSignal.CNP, i * 5_000L);
        assertEquals(1_000_000_000L, d.rateBps());
    }

    @Test
    void pacingIsExactOverAMillionPacketsAtARateThatDoesNotDivideTheirTime() {
        Dcqcn d = new Dcqcn(Dcqcn.Config.parse("line=7g"));
        long now = 1_000;
        for (int i = 0; i < 1_000_000; i++) {
            d.onSent(1024, now);
            now = d.nextSendTime(now);
        }
        // 10^6 × 8192 bits at 7 Gbit/s = 1170285714.28 ns: one rounding, not a million
        assertEquals(1_000 + 1_000_000L * 8192 * 1_000_000_000L / 7_000_000_000L, now);
    }

    @Test
    void optionsAreParsedByNameAndBadOnesRefusedNamingThem() {
        Dcqcn.Config c = Dcqcn.Config.parse("line=25g,minRate=50m,g=0.0625,rpTimer=55,rateAI=40m,byteCounter=0");
        assertEquals(25_000_000_000L, c.lineRateBps());
        assertEquals(50_000_000L, c.minRateBps());
        assertEquals(0.0625, c.g());
        assertEquals(55_000, c.rpTimerNanos());
        assertEquals(40_000_000L, c.rateAiBps());
        assertEquals(0, c.byteCounter());
        assertEquals("dcqcn", RateControl.named("dcqcn").name());
        assertEquals("dcqcn", RateControl.named("DCQCN:line=40g").name());
        assertTrue(assertThrows(IllegalArgumentException.class, () -> RateControl.named("dcqcn:bogus=1"))
                .getMessage().contains("bogus"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> RateControl.named("dcqcn:g=2"))
                .getMessage().contains("g must be"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> RateControl.named("dcqcn:line=fast"))
                .getMessage().contains("line"));
    }
}
