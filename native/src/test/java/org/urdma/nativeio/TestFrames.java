package org.urdma.nativeio;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;

/** Builds and checks test frames: dst, src, EtherType, 4-byte sequence number, then a pattern. */
final class TestFrames {
    static final int ETHERTYPE = 0x88B5; // IEEE 802 local experimental
    static final ValueLayout.OfShort BE_SHORT = ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    static final ValueLayout.OfInt BE_INT = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);

    private TestFrames() {
    }

    static void write(MemorySegment seg, long off, byte[] dst, byte[] src, int seq, int len) {
        MemorySegment.copy(dst, 0, seg, JAVA_BYTE, off, 6);
        MemorySegment.copy(src, 0, seg, JAVA_BYTE, off + 6, 6);
        seg.set(BE_SHORT, off + 12, (short) ETHERTYPE);
        seg.set(BE_INT, off + 14, seq);
        for (int i = 18; i < len; i++) {
            seg.set(JAVA_BYTE, off + i, pattern(seq, i));
        }
    }

    static byte[] expected(byte[] dst, byte[] src, int seq, int len) {
        MemorySegment s = MemorySegment.ofArray(new byte[len]);
        write(s, 0, dst, src, seq, len);
        return s.toArray(JAVA_BYTE);
    }

    static byte pattern(int seq, int i) {
        return (byte) (seq * 31 + i * 7);
    }

    static int sizeFor(int seq, int min, int max) {
        return min + (int) ((seq * 977L) % (max - min + 1));
    }

    static int openFds() {
        String[] fds = new java.io.File("/proc/self/fd").list();
        return fds == null ? -1 : fds.length;
    }
}
