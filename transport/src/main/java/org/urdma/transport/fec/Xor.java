package org.urdma.transport.fec;

import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;

/** XOR of byte ranges, eight bytes at a time. */
final class Xor {
    private Xor() {
    }

    /** dst[0, len) ^= src[off, off + len). */
    static void into(MutableDirectBuffer dst, DirectBuffer src, int off, int len) {
        int i = 0;
        for (; i + 8 <= len; i += 8) dst.putLong(i, dst.getLong(i) ^ src.getLong(off + i));
        for (; i < len; i++) dst.putByte(i, (byte) (dst.getByte(i) ^ src.getByte(off + i)));
    }
}
