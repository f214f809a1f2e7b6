package org.urdma.transport.engine;

import static org.junit.jupiter.api.Assertions.*;

import org.junit.jupiter.api.Test;
import org.urdma.transport.wire.Psn;
import org.urdma.transport.wire.SackEth;

/** The SACK-ETH's ranges from a hand-filled window, across the PSN wrap, with and without P-FEC holding gaps back. */
class SackRangesTest {
    static final int E = 0xFFFFF0; // the in-order point, just before the 2^24 wrap

    @Test
    void eachRunOfMissingPsnsBetweenTheInOrderPointAndTheHighestPlacedIsOneRange() {
        PsnWindow win = new PsnWindow();
        SackRanges s = new SackRanges();
        s.start(E);
        // present: E+2, E+3, E+10 (past the wrap); missing: E..E+1, E+4..E+9
        win.set(Psn.add(E, 2), 0, 0, 0);
        win.set(Psn.add(E, 3), 0, 0, 0);
        win.set(Psn.add(E, 10), 0, 0, 0);
        int n = s.missingRanges(E, Psn.add(E, 11), win, null);
        assertEquals(2, n);
        assertEquals(E, s.rangeStart[0]);
        assertEquals(2, s.rangeLength[0]);
        assertEquals(Psn.add(E, 4), s.rangeStart[1]);
        assertEquals(6, s.rangeLength[1]);
        assertFalse(s.resumesPast(E), "everything fitted: the next SACK starts at the in-order point again");
    }

    @Test
    void aGapLongerThan255PsnsTakesSeveralRanges() {
        PsnWindow win = new PsnWindow();
        SackRanges s = new SackRanges();
        s.start(E);
        win.set(Psn.add(E, 600), 0, 0, 0);
        int n = s.missingRanges(E, Psn.add(E, 601), win, null);
        assertEquals(3, n);
        assertEquals(255, s.rangeLength[0]);
        assertEquals(255, s.rangeLength[1]);
        assertEquals(90, s.rangeLength[2]);
        assertEquals(Psn.add(E, 510), s.rangeStart[2]);
    }

    @Test
    void moreGapsThanOneSackHoldsAreReportedInTurnBySuccessiveSacks() {
        PsnWindow win = new PsnWindow();
        SackRanges s = new SackRanges();
        s.start(E);
        int gaps = SackEth.MAX_RANGES + 5;
        for (int i = 0; i < gaps; i++) win.set(Psn.add(E, 2 * i + 1), 0, 0, 0); // every even offset missing
        int high = Psn.add(E, 2 * gaps);
        assertEquals(SackEth.MAX_RANGES, s.missingRanges(E, high, win, null));
        assertTrue(s.resumesPast(E), "a full SACK leaves the rest for the next");
        assertEquals(5, s.missingRanges(E, high, win, null), "the next SACK lists the gaps the first had no room for");
        assertEquals(Psn.add(E, 2 * SackEth.MAX_RANGES), s.rangeStart[0]);
        assertFalse(s.resumesPast(E));
        assertEquals(SackEth.MAX_RANGES, s.missingRanges(E, high, win, null), "then it starts over at the in-order point");
        assertEquals(E, s.rangeStart[0]);
    }

    @Test
    void withFecAGapWhoseParityMayStillComeIsHeldBackUntilTheFlowGoesQuiet() {
        PsnWindow win = new PsnWindow();
        SackRanges s = new SackRanges();
        s.start(E);
        FecReceiver fec = new FecReceiver(1100, E, 8, 2); // no parity yet: nothing settled past E
        win.set(Psn.add(E, 1), 0, 0, 0);
        win.set(Psn.add(E, 2), 0, 0, 0);
        int high = Psn.add(E, 3);
        long t = 5_000_000;
        s.onArrival(t);
        assertEquals(0, s.missingRanges(E, high, win, fec), "E may be rebuilt from its group's parity");
        s.onTimer(fec, t + SackRanges.FEC_QUIET_NANOS - 1);
        assertEquals(0, s.missingRanges(E, high, win, fec), "not quiet long enough");
        s.onTimer(fec, t + SackRanges.FEC_QUIET_NANOS);
        assertEquals(1, s.missingRanges(E, high, win, fec), "a quiet flow has no parity coming: list the gap");
        assertEquals(E, s.rangeStart[0]);
        assertEquals(0, s.missingRanges(E, high, win, fec), "once: the next SACK holds back again");
    }

    @Test
    void withFecAGapFarBehindTheHighestPsnIsListedWithoutParity() {
        PsnWindow win = new PsnWindow();
        SackRanges s = new SackRanges();
        s.start(E);
        FecReceiver fec = new FecReceiver(1100, E, 8, 2);
        int far = SackRanges.FEC_HOLD_PSNS + 10;
        for (int i = 1; i <= far; i++) win.set(Psn.add(E, i), 0, 0, 0);
        assertEquals(1, s.missingRanges(E, Psn.add(E, far + 1), win, fec));
        assertEquals(E, s.rangeStart[0]);
        assertEquals(1, s.rangeLength[0]);
    }
}
