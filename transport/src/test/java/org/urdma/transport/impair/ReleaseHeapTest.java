package org.urdma.transport.impair;

import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

import java.lang.management.ManagementFactory;

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

    @Test
    void aGrowingLineStartsSmallKeepsItsFramesAndFlagsAcrossGrowthAndRefusesOnlyAtItsLimit() {
        ReleaseHeap line = new ReleaseHeap(1024, 16 * 1024, 256);
        assertEquals(1024, line.capacityBytes(), "starts small");
        UnsafeBuffer src = new UnsafeBuffer(new byte[1000]);
        int n = 0;
        while (true) {
            src.setMemory(0, 1000, (byte) n);
            if (!line.add(src, 0, 1000, 1_000 - n, 10 * n, 0x80, n % 3 == 0)) break;
            n++;
        }
        assertEquals(16, n, "16 KiB in 256 B cells holds 16 frames of 1000 B (4 cells each)");
        assertEquals(16 * 1024, line.capacityBytes(), "grew to the limit, no further");
        assertEquals(1, line.refused());
        UnsafeBuffer dst = new UnsafeBuffer(new byte[1000]);
        for (int i = n - 1; i >= 0; i--) { // the last offered is due first
            assertEquals(1_000 - i, line.nextRelease());
            assertEquals(i % 3 == 0, line.peekFlag(), "flag of frame " + i);
            assertEquals(1000, line.pollInto(dst, 0));
            for (int b = 0; b < 1000; b++) {
                byte want = (byte) (b == 10 * i ? i ^ 0x80 : i);
                assertEquals(want, dst.getByte(b), "frame " + i + " byte " + b);
            }
        }
        assertEquals(0, line.size());
    }

    @Test
    void aGrownLineAllocatesNothingPerFrame() {
        ReleaseHeap line = new ReleaseHeap(256, 1 << 20, 256);
        UnsafeBuffer src = new UnsafeBuffer(new byte[1500]);
        UnsafeBuffer dst = new UnsafeBuffer(new byte[1500]);
        SplittableRandom r = new SplittableRandom(3);
        com.sun.management.ThreadMXBean mx = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        long tid = Thread.currentThread().threadId();
        long best = Long.MAX_VALUE;
        long now = 0;
        for (int round = 0; round < 10; round++) {
            long before = mx.getThreadAllocatedBytes(tid);
            for (int i = 0; i < 10_000; i++) {
                now += 100;
                assertTrue(line.add(src, 0, 64 + r.nextInt(1400), now + r.nextInt(20_000), -1, 0, (i & 1) == 0));
                while (line.nextRelease() <= now) {
                    line.pollInto(dst, 0);
                }
            }
            best = Math.min(best, mx.getThreadAllocatedBytes(tid) - before);
        }
        assertTrue(line.capacityBytes() > 256 && line.capacityBytes() < 1 << 20, "grew, to what it needed");
        assertTrue(best < 1024, best + " bytes allocated for 10000 frames");
    }
}
