package org.urdma.transport.rate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** DCTCP's reactions to hand-made CNPs and RTT samples on a virtual clock (times in ns). */
class DctcpTest {
    static final long LINE = 10_000_000_000L;
    static final long RTT = 10_000;
    static final double G = 1.0 / 16;

    /** Sends {@code packets} packets of 1000 B at {@code from}, one per 800 ns (the line rate). */
    static long send(Dctcp d, int packets, long from) {
        long t = from;
        for (int i = 0; i < packets; i++) {
            d.onSent(1000, t);
            t += 800;
        }
        return t;
    }

    @Test
    void theFirstCnpCutsTheRateByAlphaHalfWithAlphaStartingAtOne() {
        Dctcp d = new Dctcp(Dctcp.Config.defaults(LINE));
        assertEquals(LINE, d.rateBps());
        assertEquals(1.0, d.alpha());
        d.onCongestion(CongestionSignal.CNP, 1_000);
        assertEquals(LINE / 2, d.rateBps(), "cut by alpha / 2 = 1/2");
        assertTrue(d.inCwr());
    }

    @Test
    void cnpsWithinOneRoundTripOfACutDoNotCutAgain() {
        Dctcp d = new Dctcp(Dctcp.Config.defaults(LINE));
        d.onAck(RTT, 0); // a sample: the round trip is 10 µs
        d.onCongestion(CongestionSignal.CNP, 100_000);
        d.onCongestion(CongestionSignal.CNP, 105_000);
        d.onAck(-1, 109_000);
        d.onCongestion(CongestionSignal.CNP, 109_500);
        assertEquals(LINE / 2, d.rateBps(), "one cut per round trip (CWR)");
        assertEquals(1, d.cuts());
        d.onAck(-1, 110_000);
        assertFalse(d.inCwr(), "CWR ends one RTT after the cut");
        d.onCongestion(CongestionSignal.CNP, 110_100);
        assertEquals(LINE / 4, d.rateBps());
    }

    @Test
    void alphaMovesByGTowardsTheFractionOfMarkedPacketsOncePerWindow() {
        Dctcp d = new Dctcp(Dctcp.Config.defaults(LINE));
        d.onAck(RTT, 0); // starts the first window
        long t = send(d, 10, 1_000);
        d.onCongestion(CongestionSignal.CNP, t); // 1 of 10 marked (cuts, enters CWR)
        d.onAck(RTT, t + RTT); // the sample of a packet sent at t, after the window began: the window ends
        double alpha = (1 - G) * 1 + G * 0.1;
        assertEquals(alpha, d.alpha(), 1e-12);
        assertEquals(1, d.windows());
        // a sample of a packet sent before this window began does not end it
        d.onAck(RTT, t + RTT + 5_000);
        assertEquals(1, d.windows());
        long t2 = send(d, 4, t + 20_000);
        d.onAck(RTT, t2 + RTT); // a window with no mark
        assertEquals((1 - G) * alpha, d.alpha(), 1e-12);
        assertEquals(2, d.windows());
    }

    @Test
    void eachWindowWithoutACutAddsRateAiUpToTheLineRate() {
        Dctcp.Config c = Dctcp.Config.defaults(LINE);
        Dctcp d = new Dctcp(c);
        d.onAck(RTT, 0);
        d.onCongestion(CongestionSignal.CNP, 1_000);
        long cut = d.rateBps();
        assertEquals(LINE / 2, cut);
        long t = 1_000 + RTT;
        d.onAck(RTT, t); // ends a window; CWR is over (one RTT since the cut)
        assertEquals(cut + c.rateAiBps(), d.rateBps(), "additive increase of 615 Mbit/s per window");
        for (int i = 0; i < 100; i++) {
            t += RTT;
            d.onAck(RTT, t);
        }
        assertEquals(LINE, d.rateBps(), "capped at the line rate");
    }

    @Test
    void theRateNeverFallsBelowMinRate() {
        Dctcp d = new Dctcp(Dctcp.Config.parse("line=10g,minRate=2g"));
        long t = 0;
        for (int i = 0; i < 20; i++) {
            d.onAck(RTT, t);
            d.onCongestion(CongestionSignal.CNP, t);
            t += 2 * RTT;
        }
        assertEquals(2_000_000_000L, d.rateBps());
    }

    @Test
    void optionsAreParsedAndABadOneIsNamed() {
        Dctcp.Config c = Dctcp.Config.parse("line=25g,g=0.125,rateAI=1g");
        assertEquals(25_000_000_000L, c.lineRateBps());
        assertEquals(0.125, c.g());
        assertEquals(1_000_000_000L, c.rateAiBps());
        assertEquals("dctcp", RateControl.named("dctcp:line=25g").name());
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> RateControl.named("dctcp:gain=2"));
        assertTrue(e.getMessage().contains("gain"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> RateControl.named("dctcp:g=2"));
        assertTrue(e.getMessage().contains("dctcp g"), e.getMessage());
    }
}
