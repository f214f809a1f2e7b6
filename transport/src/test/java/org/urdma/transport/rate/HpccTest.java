package org.urdma.transport.rate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import org.urdma.transport.wire.IntStack;

/** HPCC's rate from hand-made INT stacks, against the paper's formulas worked out here. */
class HpccTest {
    static final long LINE = 100_000_000_000L;
    static final long T = 13_000;
    private final UnsafeBuffer stack = new UnsafeBuffer(new byte[IntStack.LENGTH]);

    /** An echoed one-hop stack: a 100 Gbit/s port with {@code queueUnits} × 128 bytes queued, {@code txUnits} × 128 sent, at {@code t}. */
    private UnsafeBuffer hop(long queueUnits, long txUnits, long t) {
        IntStack.putEmpty(stack, 0);
        IntStack.push(stack, 0, LINE, queueUnits * 128, txUnits * 128, t);
        IntStack.echo(stack, 0, true);
        return stack;
    }

    private static Hpcc hpcc() {
        return new Hpcc(Hpcc.Config.defaults(LINE, T));
    }

    @Test
    void theDefaultsAreThePapers() {
        Hpcc.Config c = Hpcc.Config.defaults(LINE, T);
        assertEquals(0.95, c.eta());
        assertEquals(5, c.maxStage());
        assertEquals(162_500, c.bdpBytes());
        // W_AI = BDP (1 - eta) / 100 = 81.25 bytes per 13 us
        assertEquals(Math.round(81.25 * 8 / 13e-6), c.rateAiBps());
    }

    @Test
    void theFirstEchoOnlyRemembersTheHops() {
        Hpcc h = hpcc();
        h.onTelemetry(hop(100, 0, 0), 0, 0, 10, 0);
        assertEquals(LINE, h.rateBps());
        assertEquals(0, h.updates());
        assertEquals(h.config().bdpBytes(), h.windowBytes(), "the window starts at the bandwidth-delay product");
    }

    @Test
    void aHopBusyAboveEtaCutsTheRateToTheReferenceOverUOverEtaPlusTheIncrease() {
        Hpcc h = hpcc();
        h.onTelemetry(hop(127, 0, 0), 0, 0, 10, 0);
        // one base RTT later: 1250 units sent and 127 units queued both times
        h.onTelemetry(hop(127, 1250, T), 0, 10, 20, T);
        double txRate = 1250 * 128 * 8 / (T * 1e-9);
        double u = txRate / LINE + 127 * 128 * 8.0 / (LINE * T * 1e-9); // tau = T: the EWMA takes U whole
        assertEquals(u, h.utilisation(), 1e-12);
        assertTrue(u / 0.95 > 1);
        long expected = Math.round(LINE / (u / 0.95)) + h.config().rateAiBps();
        assertEquals(expected, h.rateBps());
        assertEquals(expected, h.referenceRateBps(), "an ACK of data sent after the last update moves the reference");
        assertEquals(0, h.incStage());
        assertEquals(1, h.updates());
        assertEquals(Math.round(162_500.0 * expected / LINE), h.windowBytes(), 1, "the window follows the rate");
    }

    @Test
    void belowEtaTheRateGrowsByTheIncreaseEachRoundThenMultiplicativelyAfterMaxStage() {
        Hpcc h = hpcc();
        long ai = h.config().rateAiBps();
        long t = 0;
        long tx = 0;
        h.onTelemetry(hop(0, tx, t), 0, 0, 10, t);
        // first cut to half the line so there is room to grow: 50 % busy
        int psn = 10;
        long rate = LINE;
        for (int round = 1; round <= 7; round++) {
            t += T;
            tx += 635; // 635 units per 13 us: 50.0 % of 100 Gbit/s
            h.onTelemetry(hop(0, tx, t), 0, psn, psn + 10, t);
            psn += 10;
            double u = 635 * 128 * 8 / (T * 1e-9) / LINE;
            if (round <= 5) {
                rate = Math.min(LINE, rate + ai);
                assertEquals(round, h.incStage(), "round " + round);
            } else if (round == 6) {
                rate = Math.round(rate / (u / 0.95)) + ai; // maxStage reached: multiplicative step towards eta
                assertEquals(0, h.incStage());
            } else {
                rate = rate + ai;
                assertEquals(1, h.incStage());
            }
            assertEquals(Math.min(LINE, rate), h.rateBps(), "round " + round);
            rate = h.rateBps();
        }
    }

    @Test
    void anEchoOfDataSentBeforeTheLastUpdateReactsWithoutMovingTheReference() {
        Hpcc h = hpcc();
        h.onTelemetry(hop(0, 0, 0), 0, 0, 10, 0);
        h.onTelemetry(hop(127, 1250, T), 0, 10, 20, T); // a full round: the next update needs PSN 20
        long reference = h.referenceRateBps();
        h.onTelemetry(hop(500, 2500, 2 * T), 0, 15, 30, 2 * T);
        assertEquals(reference, h.referenceRateBps());
        assertEquals(1, h.fastReactions());
        assertTrue(h.rateBps() < reference, "a growing queue cuts at once: " + h.rateBps() + " vs " + reference);
        h.onTelemetry(hop(0, 3000, 3 * T), 0, 20, 40, 3 * T);
        assertEquals(2, h.updates(), "PSN 20 answered: the reference moves again");
    }

    @Test
    void aPathOfAnotherLengthIsRememberedNotCompared() {
        Hpcc h = hpcc();
        h.onTelemetry(hop(0, 0, 0), 0, 0, 10, 0);
        IntStack.putEmpty(stack, 0);
        IntStack.push(stack, 0, LINE, 0, 1250 * 128, T);
        IntStack.push(stack, 0, LINE, 0, 1250 * 128, T);
        IntStack.echo(stack, 0, true);
        h.onTelemetry(stack, 0, 10, 20, T);
        assertEquals(LINE, h.rateBps());
        assertEquals(0, h.updates());
    }

    @Test
    void itIsChosenByNameWithItsOptionsAndRefusesBadOnesByName() {
        RateControl r = RateControl.named("hpcc:line=25g,rtt=5,eta=0.9,maxStage=3,wai=100").create();
        assertEquals("hpcc", r.name());
        assertTrue(r.wantsTelemetry());
        assertEquals(1, r.ackEvery());
        Hpcc h = (Hpcc) r;
        assertEquals(25_000_000_000L, h.config().lineRateBps());
        assertEquals(5_000, h.config().baseRttNanos());
        assertEquals(0.9, h.config().eta());
        assertEquals(3, h.config().maxStage());
        assertEquals(Math.round(100 * 8 / 5e-6), h.config().rateAiBps());
        assertTrue(assertThrows(IllegalArgumentException.class, () -> RateControl.named("hpcc:eta=2")).getMessage().contains("eta"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> RateControl.named("hpcc:speed=1")).getMessage().contains("speed"));
    }
}
