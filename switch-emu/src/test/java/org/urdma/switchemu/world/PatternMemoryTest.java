package org.urdma.switchemu.world;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

/** Described payloads: what a frame says, what placing it checks and records, and what travels as bytes. */
class PatternMemoryTest {
    private final UnsafeBuffer frame = new UnsafeBuffer(ByteBuffer.allocateDirect(4096));

    private static UnsafeBuffer view(MemorySegment s) {
        return new UnsafeBuffer(s.address(), (int) s.byteSize());
    }

    @Test
    void aDescribedChunkIsSixteenBytesPlusTheMagicAndPlacesAsWrittenAtTheSameOffset() {
        try (PatternMemory p = new PatternMemory()) {
            MemorySegment src = p.allocate(1 << 20, 5);
            MemorySegment dst = p.allocate(1 << 20, 5);
            int took = p.put(frame, 0, 0, view(src), 8192, 4096);
            assertEquals(24, took);
            assertEquals(4096, p.length(frame, 0, took));
            p.get(frame, 0, 0, view(dst), 8192, 4096);
            assertTrue(p.verify(dst, 8192, 4096));
            assertFalse(p.verify(dst, 8192, 4097), "a byte nobody wrote is not verified");
            assertFalse(p.verify(dst, 0, 4096));
        }
    }

    @Test
    void placingAtAnotherOffsetOrFromAnotherPatternIsAMismatch() {
        try (PatternMemory p = new PatternMemory()) {
            MemorySegment src = p.allocate(1 << 20, 5);
            MemorySegment other = p.allocate(1 << 20, 6);
            MemorySegment dst = p.allocate(1 << 20, 5);
            p.put(frame, 0, 0, view(src), 0, 4096);
            p.get(frame, 0, 0, view(dst), 4096, 4096); // misplaced by one page
            assertEquals(1, p.mismatches(dst));
            assertFalse(p.verify(dst, 4096, 4096));
            MemorySegment dst2 = p.allocate(1 << 20, 5);
            p.put(frame, 0, 0, view(other), 0, 4096);
            p.get(frame, 0, 0, view(dst2), 0, 4096);
            assertFalse(p.verify(dst2, 0, 4096), "pattern 6 where pattern 5 belongs");
        }
    }

    @Test
    void ordinaryMemoryTravelsAsBytesAndReceivesThePatternsBytes() {
        try (PatternMemory p = new PatternMemory()) {
            MemorySegment src = p.allocate(1 << 20, 9);
            UnsafeBuffer plain = new UnsafeBuffer(ByteBuffer.allocateDirect(256));
            for (int i = 0; i < 100; i++) plain.putByte(i, (byte) i);
            assertEquals(100, p.put(frame, 0, 0, plain, 0, 100), "a payload that starts plain stays bytes");
            assertEquals(100, p.length(frame, 0, 100));
            // a described payload with a literal chunk after it, read in two pieces across the boundary
            int took = p.put(frame, 0, 0, view(src), 64, 40);
            took += p.put(frame, 0, took, plain, 0, 10);
            assertEquals(24 + 8 + 16, took);
            assertEquals(50, p.length(frame, 0, took));
            UnsafeBuffer out = new UnsafeBuffer(ByteBuffer.allocateDirect(64));
            p.get(frame, 0, 0, out, 0, 30);
            p.get(frame, 0, 30, out, 30, 20);
            for (int i = 0; i < 40; i++) assertEquals(PatternMemory.patternByte(9, 64 + i), out.getByte(i), "byte " + i);
            for (int i = 0; i < 10; i++) assertEquals((byte) i, out.getByte(40 + i));
        }
    }

    @Test
    void coverageMergesTouchingIntervalsAndSeesGaps() {
        Coverage c = new Coverage();
        c.add(100, 200);
        c.add(300, 400);
        c.add(0, 50);
        assertFalse(c.covers(0, 400));
        c.add(200, 300);
        c.add(50, 100);
        assertEquals(1, c.intervals());
        assertTrue(c.covers(0, 400));
        assertFalse(c.covers(0, 401));
        c.add(500, 600);
        c.add(450, 650);
        assertEquals(2, c.intervals());
        assertTrue(c.covers(450, 650));
    }
}
