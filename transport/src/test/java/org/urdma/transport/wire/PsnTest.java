package org.urdma.transport.wire;

import static org.junit.jupiter.api.Assertions.*;

import org.junit.jupiter.api.Test;

class PsnTest {
    @Test
    void arithmeticWrapsAt2To24() {
        assertEquals(0, Psn.add(0xFFFFFF, 1));
        assertEquals(0xFFFFFF, Psn.add(0, -1));
        assertTrue(Psn.after(0, 0xFFFFFF));
        assertTrue(Psn.before(0xFFFFF0, 5));
        assertEquals(21, Psn.diff(5, 0xFFFFF0));
        assertEquals(-21, Psn.diff(0xFFFFF0, 5));
        assertTrue(Psn.atOrAfter(7, 7));
        // half the circle away is "after" (the spec's (a - b) << 8 > 0 rule)
        assertTrue(Psn.after(0x7FFFFF, 0));
        assertFalse(Psn.after(0x800000, 0));
    }
}
