package org.urdma.transport.fec;

import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;
import org.agrona.UnsafeApi;

/**
 * XOR of byte ranges, eight bytes at a time, the bounds checked once per call: with Agrona's check on every 8-byte
 * read and write, the XOR of each 4 KiB packet was the FEC receiver's hottest code (JFR: 40 % of its samples at
 * 1 Gbit/s), and on two cores that CPU is what the engine thread lost to the scheduler.
 */
final class Xor {
    private Xor() {
    }

    /** dst[0, len) ^= src[off, off + len). */
    static void into(MutableDirectBuffer dst, DirectBuffer src, int off, int len) {
        dst.boundsCheck(0, len);
        src.boundsCheck(off, len);
        byte[] da = dst.byteArray();
        long d = dst.addressOffset();
        byte[] sa = src.byteArray();
        long s = src.addressOffset() + off;
        int i = 0;
        for (; i + 32 <= len; i += 32) {
            UnsafeApi.putLong(da, d + i, UnsafeApi.getLong(da, d + i) ^ UnsafeApi.getLong(sa, s + i));
            UnsafeApi.putLong(da, d + i + 8, UnsafeApi.getLong(da, d + i + 8) ^ UnsafeApi.getLong(sa, s + i + 8));
            UnsafeApi.putLong(da, d + i + 16, UnsafeApi.getLong(da, d + i + 16) ^ UnsafeApi.getLong(sa, s + i + 16));
            UnsafeApi.putLong(da, d + i + 24, UnsafeApi.getLong(da, d + i + 24) ^ UnsafeApi.getLong(sa, s + i + 24));
        }
        for (; i + 8 <= len; i += 8) UnsafeApi.putLong(da, d + i, UnsafeApi.getLong(da, d + i) ^ UnsafeApi.getLong(sa, s + i));
        for (; i < len; i++) dst.putByte(i, (byte) (dst.getByte(i) ^ src.getByte(off + i)));
    }
}
