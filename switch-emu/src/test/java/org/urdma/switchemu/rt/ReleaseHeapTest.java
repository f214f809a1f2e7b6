package org.urdma.switchemu.rt;

import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ReleaseHeapTest {
    @Test
    void framesLeaveInReleaseTimeOrderTiesInArrivalOrderWithTheirBytes() {
        ReleaseHeap line = new ReleaseHeap(1 << 20, 256);
        SplittableRandom r = new SplittableRandom(7);
        UnsafeBuffer src = new UnsafeBuffer(new byte[2000]);
        int n = 2000;
        for (int i = 0; i < n; i++) {
            int len = 60 + r.nextInt(400);
            src.putInt(0, i);
            src.putInt(len - 4, i ^ 0x5A5A5A5A);
            assertTrue(line.add(src, 0, len, r.nextInt(50), -1, 0));
        }
        UnsafeBuffer dst = new UnsafeBuffer(new byte[2000]);
        long lastTime = -1;
        int lastId = -1;
        for (int i = 0; i < n; i++) {
            long t = line.nextRelease();
            assertTrue(t >= lastTime);
            int len = line.peekLength();
            assertEquals(len, line.pollInto(dst, 0));
            int id = dst.getInt(0);
            assertEquals(id ^ 0x5A5A5A5A, dst.getInt(len - 4), "bytes intact");
            if (t == lastTime) {
                assertTrue(id > lastId, "ties leave in arrival order");
            }
            lastTime = t;
            lastId = id;
        }
        assertEquals(Long.MAX_VALUE, line.nextRelease());
        assertThrows(IllegalStateException.class, () -> line.pollInto(dst, 0));
    }

    @Test
    void aFullLineRefusesAndCountsAndCorruptionFlipsTheChosenBit() {
        ReleaseHeap line = new ReleaseHeap(1024, 256);
        UnsafeBuffer src = new UnsafeBuffer(new byte[600]);
        assertTrue(line.add(src, 0, 600, 10, 5, 0x10));
        assertFalse(line.add(src, 0, 300, 5, -1, 0), "600 B took 3 cells, 300 B needs 2 of the 1 left");
        assertEquals(1, line.refused());
        assertTrue(line.add(src, 0, 200, 5, -1, 0));
        UnsafeBuffer dst = new UnsafeBuffer(new byte[600]);
        assertEquals(200, line.pollInto(dst, 0));
        assertEquals(600, line.pollInto(dst, 0));
        assertEquals(0x10, dst.getByte(5));
    }
}
