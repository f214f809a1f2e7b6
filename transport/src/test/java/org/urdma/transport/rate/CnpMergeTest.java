package org.urdma.transport.rate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class CnpMergeTest {
    private static final long THR = 10_000;

    @Test
    void aCnpForAQpidSeenWithinTimerThrIsMergedAndOneAfterItPasses() {
        CnpMerge m = new CnpMerge(THR);
        assertTrue(m.admit(7, 0), "first CNP of a QPID passes");
        assertFalse(m.admit(7, 1), "same QPID 1 ns later");
        assertFalse(m.admit(7, THR - 1), "same QPID just inside TIMER_THR");
        assertTrue(m.admit(7, THR), "TIMER_THR after the one that passed");
        assertFalse(m.admit(7, THR + 5));
        assertEquals(2, m.passed());
        assertEquals(3, m.merged());
    }

    @Test
    void timingRunsFromTheLastCnpThatPassedSoASteadyStreamStillGetsOnePerTimerThrThrough() {
        CnpMerge m = new CnpMerge(THR);
        int passed = 0;
        // one CNP every 1 µs for 100 µs: 10 TIMER_THR windows
        for (long t = 0; t < 100_000; t += 1_000) passed += m.admit(3, t) ? 1 : 0;
        assertEquals(10, passed);
        assertEquals(90, m.merged());
    }

    @Test
    void differentQpidsDoNotMergeEachOther() {
        CnpMerge m = new CnpMerge(THR);
        for (int q = 1; q <= CnpMerge.ENTRIES; q++) assertTrue(m.admit(q, 100), "QPID " + q);
        for (int q = 1; q <= CnpMerge.ENTRIES; q++) assertFalse(m.admit(q, 200), "QPID " + q + " again");
    }

    @Test
    void theBufferHoldsEightQpidsAndTheOldestGivesWayToANinth() {
        CnpMerge m = new CnpMerge(THR);
        for (int q = 1; q <= 8; q++) m.admit(q, 0);
        assertTrue(m.admit(9, 1), "a ninth QPID passes and takes the oldest entry (QPID 1)");
        assertTrue(m.admit(1, 2), "QPID 1 was forgotten: passes inside TIMER_THR");
        assertFalse(m.admit(9, 3), "QPID 9 is remembered");
        assertFalse(m.admit(3, 4), "QPID 3 is still in the buffer");
    }

    @Test
    void timerThrMustBePositive() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> new CnpMerge(0));
        assertTrue(e.getMessage().startsWith("TIMER_THR:"), e.getMessage());
    }
}
