package org.urdma.transport.fec;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.ByteBuffer;
import java.util.Random;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

class XorTest {
    @Test
    void everyLengthAndOffsetMatchesAByteByByteXorFromHeapAndDirectMemory() {
        Random r = new Random(7);
        for (int len = 0; len <= 80; len++) {
            for (int off = 0; off < 9; off++) {
                byte[] a = new byte[96];
                byte[] b = new byte[off + len + 5];
                r.nextBytes(a);
                r.nextBytes(b);
                byte[] want = a.clone();
                for (int i = 0; i < len; i++) want[i] ^= b[off + i];
                byte[] heap = a.clone();
                Xor.into(new UnsafeBuffer(heap), new UnsafeBuffer(b), off, len);
                assertArrayEquals(want, heap, "heap source, len " + len + " off " + off);
                ByteBuffer direct = ByteBuffer.allocateDirect(b.length);
                direct.put(b).flip();
                byte[] fromDirect = a.clone();
                Xor.into(new UnsafeBuffer(fromDirect), new UnsafeBuffer(direct), off, len);
                assertArrayEquals(want, fromDirect, "direct source, len " + len + " off " + off);
            }
        }
    }

    @Test
    void aRangeBeyondEitherBufferIsRefusedBeforeAnyByteChanges() {
        byte[] dst = new byte[16];
        assertThrows(IndexOutOfBoundsException.class, () -> Xor.into(new UnsafeBuffer(dst), new UnsafeBuffer(new byte[64]), 0, 17));
        assertThrows(IndexOutOfBoundsException.class, () -> Xor.into(new UnsafeBuffer(new byte[64]), new UnsafeBuffer(new byte[16]), 8, 9));
        assertArrayEquals(new byte[16], dst);
    }
}
