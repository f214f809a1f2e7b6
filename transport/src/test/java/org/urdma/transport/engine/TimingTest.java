package org.urdma.transport.engine;

import static org.junit.jupiter.api.Assertions.*;

import org.junit.jupiter.api.Test;

class TimingTest {
    @Test
    void timerTables() {
        assertEquals(655_360_000L, Timing.rnrNanos(0));
        assertEquals(10_000L, Timing.rnrNanos(1));
        assertEquals(491_520_000L, Timing.rnrNanos(31));
        assertEquals(Long.MAX_VALUE, Timing.ackTimeoutNanos(0));
        assertEquals(4096L << 14, Timing.ackTimeoutNanos(14));
    }
}
