package org.urdma.nativeio;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Random;
import java.util.zip.CRC32;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

class IsalCrc32Test {
    @BeforeAll
    static void libraryPresent() {
        // CI installs libisal2 (.ci/run), so there a missing library is a failure, not a skip
        if ("true".equals(System.getenv("CI"))) {
            assertTrue(IsalCrc32.available(), "CI=true but ISA-L is not in use: " + IsalCrc32.status());
        }
        assumeTrue(IsalCrc32.available(), "skipped: " + IsalCrc32.status());
    }

    private static int javaCrc(byte[] bytes, int from, int length) {
        CRC32 c = new CRC32();
        c.update(bytes, from, length);
        return (int) c.getValue();
    }

    @Test
    void equalsJavaCrc32AtEveryLengthAndAlignmentOfAShortFrameAndOnFullMtuFrames() {
        byte[] data = new byte[4200 + 16];
        new Random(7).nextBytes(data);
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment seg = arena.allocate(data.length, 64);
            MemorySegment.copy(data, 0, seg, ValueLayout.JAVA_BYTE, 0, data.length);
            for (int offset = 0; offset < 16; offset++) {
                for (int length = 0; length <= 300; length++) {
                    assertEquals(javaCrc(data, offset, length), IsalCrc32.update(0, seg.address() + offset, length),
                            "offset " + offset + " length " + length);
                }
                for (int length : new int[] {1024, 4096, 4136, 4200}) {
                    assertEquals(javaCrc(data, offset, length), IsalCrc32.update(0, seg.address() + offset, length),
                            "offset " + offset + " length " + length);
                }
            }
        }
    }

    @Test
    void chainsLikeZlibSoAPrefixAndTheRestGiveTheWholeCrc() {
        byte[] data = new byte[4136];
        new Random(11).nextBytes(data);
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment seg = arena.allocate(data.length);
            MemorySegment.copy(data, 0, seg, ValueLayout.JAVA_BYTE, 0, data.length);
            int whole = javaCrc(data, 0, data.length);
            for (int split : new int[] {0, 1, 8, 48, 52, 63, 2048, 4135, 4136}) {
                int head = IsalCrc32.update(0, seg.address(), split);
                assertEquals(whole, IsalCrc32.update(head, seg.address() + split, data.length - split), "split " + split);
            }
        }
    }

    @Test
    void statusNamesTheLibrary() {
        assertTrue(IsalCrc32.status().contains("libisal.so.2"), IsalCrc32.status());
    }
}
