package org.urdma.transport.rate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** TIMELY's reactions to hand-made RTT samples on a virtual clock (times in ns). */
class TimelyTest {
    static final long LINE = 10_000_000_000L;

    /** Defaults at 10 Gbit/s but tLow 5 µs, so samples between 5 and 500 µs take the gradient's path. */
    static Timely timely() {
        return new Timely(Timely.Config.parse("line=10g,tLow=5"));
    }

    /** Feeds {@code rtt} samples one round trip apart from {@code t}; returns the time after the last. */
    static long samples(Timely x, long t, long... rtts) {
        for (long rtt : rtts) {
            t += rtt;
            x.onAck(rtt, t);
        }
        return t;
    }

    @Test
    void aRisingRttCutsTheRateByBetaTimesTheGradient() {
        Timely x = timely();
        // first sample sets lastRtt; then a cut so the increase has room; then the sample under test
        long t = samples(x, 0, 20_000, 30_000);
        // rttDiff = 0.875 × 10 µs; gradient = 8750 / 20000; rate × (1 - 0.8 × gradient)
        double g1 = 0.875 * 10_000 / 20_000;
        long r1 = Math.round(LINE * (1 - 0.8 * g1));
        assertEquals(r1, x.rateBps());
        samples(x, t, 34_000);
        double diff = (1 - 0.875) * 0.875 * 10_000 + 0.875 * 4_000;
        assertEquals(diff, x.rttDiffNanos(), 1e-9);
        assertEquals(Math.round(r1 * (1 - 0.8 * diff / 20_000)), x.rateBps());
        assertEquals(2, x.decreases());
    }

    @Test
    void aFallingRttIncreasesByRateAiAndAfterFiveInARowByRateHai() {
        Timely x = timely();
        long t = samples(x, 0, 20_000, 40_000); // cut
        long r = x.rateBps();
        long ai = LINE / 1000;
        long hai = LINE / 200;
        // falling RTTs: the gradient's EWMA turns negative at once (alpha 0.875)
        t = samples(x, t, 10_000);
        assertTrue(x.rttDiffNanos() < 0);
        assertEquals(r + ai, x.rateBps(), "additive increase");
        t = samples(x, t, 9_000, 8_000, 7_000, 6_000);
        assertEquals(r + 5 * ai, x.rateBps(), "five additive increases");
        assertEquals(5, x.incStage());
        samples(x, t, 5_500);
        assertEquals(r + 5 * ai + hai, x.rateBps(), "the sixth in a row is hyper-active");
    }

    @Test
    void anRttBelowTLowAlwaysIncreasesAndAboveTHighCutsByTHighOverRtt() {
        Timely x = new Timely(Timely.Config.defaults(LINE)); // tLow 50 µs, tHigh 500 µs
        long t = samples(x, 0, 10_000, 600_000);
        long r = Math.round(LINE * (1 - 0.8 * (1 - 500_000.0 / 600_000)));
        assertEquals(r, x.rateBps(), "above tHigh: rate × (1 - beta (1 - tHigh / rtt))");
        samples(x, t, 40_000); // rising wildly is irrelevant below tLow: still an increase
        assertEquals(r + LINE / 1000, x.rateBps());
    }

    @Test
    void samplesOfPacketsSentBeforeTheLastUpdateDoNotUpdateAgain() {
        Timely x = timely();
        x.onAck(20_000, 100_000);
        x.onAck(40_000, 140_000); // sent at 100 µs: at the last update, so it updates
        long r = x.rateBps();
        assertTrue(r < LINE);
        x.onAck(60_000, 170_000); // sent at 110 µs, before the update at 140 µs: no update
        x.onAck(-1, 171_000);
        assertEquals(r, x.rateBps());
        assertEquals(1, x.decreases());
    }

    @Test
    void theRateStaysBetweenMinRateAndTheLineRate() {
        Timely x = timely();
        long t = samples(x, 0, 10_000);
        for (int i = 0; i < 20; i++) t = samples(x, t, 10_000 + (i + 1) * 40_000L);
        assertEquals(Timely.Config.defaults(LINE).minRateBps(), x.rateBps(), "a cut never goes below minRate");
        for (int i = 0; i < 2000; i++) t = samples(x, t, 1_000);
        assertEquals(LINE, x.rateBps(), "an increase never goes above the line rate");
    }

    @Test
    void optionsAreParsedAndABadOneIsNamed() {
        Timely.Config c = Timely.Config.parse("line=100g");
        assertEquals(100_000_000L, c.rateAiBps(), "run.py: 10 × bw / 10 Mbit/s");
        assertEquals(500_000_000L, c.rateHaiBps(), "run.py: 50 × bw / 10 Mbit/s");
        assertEquals(50_000, c.tLowNanos());
        assertEquals(500_000, c.tHighNanos());
        assertEquals(20_000, c.minRttNanos());
        assertEquals("timely", RateControl.named("timely").name());
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> RateControl.named("timely:tLow=600"));
        assertTrue(e.getMessage().contains("tHigh"), e.getMessage());
    }
}
