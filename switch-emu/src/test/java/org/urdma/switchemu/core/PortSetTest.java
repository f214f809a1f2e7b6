package org.urdma.switchemu.core;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class PortSetTest {
    @Test
    void walksItsPortsInAscendingOrderAcrossWords() {
        PortSet s = new PortSet(130);
        for (int p : new int[] {129, 0, 64, 63, 5}) {
            s.add(p);
        }
        s.remove(5);
        List<Integer> seen = new ArrayList<>();
        for (int p = s.next(0); p >= 0; p = s.next(p + 1)) {
            seen.add(p);
        }
        assertEquals(List.of(0, 63, 64, 129), seen);
        assertTrue(s.contains(64));
        assertFalse(s.contains(5));
        assertEquals(-1, s.next(130));
    }

    @Test
    void aWalkSeesPortsAddedAboveItButNotBelow() {
        PortSet s = new PortSet(10);
        s.add(3);
        List<Integer> seen = new ArrayList<>();
        for (int p = s.next(0); p >= 0; p = s.next(p + 1)) {
            seen.add(p);
            if (p == 3) {
                s.add(1);
                s.add(7);
            }
        }
        assertEquals(List.of(3, 7), seen);
    }

    @Test
    void theUnionOfThreeSetsIsWalkedOnce() {
        PortSet a = new PortSet(70);
        PortSet b = new PortSet(70);
        PortSet c = new PortSet(70);
        a.add(2);
        b.add(2);
        b.add(66);
        c.set(9, true);
        c.set(10, true);
        c.set(10, false);
        List<Integer> seen = new ArrayList<>();
        for (int p = PortSet.nextIn(a, b, c, 0); p >= 0; p = PortSet.nextIn(a, b, c, p + 1)) {
            seen.add(p);
        }
        assertEquals(List.of(2, 9, 66), seen);
    }
}
