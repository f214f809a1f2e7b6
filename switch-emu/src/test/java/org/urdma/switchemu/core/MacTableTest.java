package org.urdma.switchemu.core;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;

class MacTableTest {
    @Test
    void learnsRefreshesAgesAndKeepsStaticEntries() {
        MacTable t = new MacTable(4, 1_000);
        t.learn(0xA, 1, 0);
        t.addStatic(0xB, 2);
        assertEquals(1, t.lookup(0xA, 500));
        t.learn(0xA, 3, 900);
        assertEquals(3, t.lookup(0xA, 1_800), "moved and refreshed");
        assertEquals(MacTable.MISS, t.lookup(0xA, 3_000), "aged out");
        assertEquals(2, t.lookup(0xB, 1_000_000), "static entries never age");
        t.learn(0xB, 1, 0);
        assertEquals(2, t.lookup(0xB, 0), "nor are relearned");
    }

    @Test
    void aFullTableLearnsNothingUntilTheSweepFreesAgedEntries() {
        MacTable t = new MacTable(2, 1_000);
        t.learn(0x1, 0, 0);
        t.learn(0x2, 0, 0);
        t.learn(0x3, 0, 10);
        assertEquals(1, t.learnFailures());
        assertEquals(MacTable.MISS, t.lookup(0x3, 10));
        t.sweep(5_000, 2);
        assertEquals(0, t.size());
        t.learn(0x3, 1, 5_000);
        assertEquals(1, t.lookup(0x3, 5_001));
    }
}
