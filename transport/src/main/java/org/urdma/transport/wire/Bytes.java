package org.urdma.transport.wire;

import java.nio.ByteOrder;

import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;

/** Big-endian field access of odd widths (8/16/24/32/48/64 bits) over Agrona buffers. */
public final class Bytes {
    private static final ByteOrder BE = ByteOrder.BIG_ENDIAN;

    private Bytes() {
    }

    public static int u8(final DirectBuffer b, final int i) {
        return b.getByte(i) & 0xFF;
    }

    public static int u16(final DirectBuffer b, final int i) {
        return b.getShort(i, BE) & 0xFFFF;
    }

    public static int u24(final DirectBuffer b, final int i) {
        return (b.getByte(i) & 0xFF) << 16 | (b.getShort(i + 1, BE) & 0xFFFF);
    }

    public static int i32(final DirectBuffer b, final int i) {
        return b.getInt(i, BE);
    }

    public static long u48(final DirectBuffer b, final int i) {
        return (long)(b.getShort(i, BE) & 0xFFFF) << 32 | (b.getInt(i + 2, BE) & 0xFFFF_FFFFL);
    }

    public static long u40(final DirectBuffer b, final int i) {
        return (long)(b.getByte(i) & 0xFF) << 32 | (b.getInt(i + 1, BE) & 0xFFFF_FFFFL);
    }

    public static long i64(final DirectBuffer b, final int i) {
        return b.getLong(i, BE);
    }

    public static void u8(final MutableDirectBuffer b, final int i, final int v) {
        b.putByte(i, (byte)v);
    }

    public static void u16(final MutableDirectBuffer b, final int i, final int v) {
        b.putShort(i, (short)v, BE);
    }

    public static void u24(final MutableDirectBuffer b, final int i, final int v) {
        b.putByte(i, (byte)(v >>> 16));
        b.putShort(i + 1, (short)v, BE);
    }

    public static void i32(final MutableDirectBuffer b, final int i, final int v) {
        b.putInt(i, v, BE);
    }

    public static void u48(final MutableDirectBuffer b, final int i, final long v) {
        b.putShort(i, (short)(v >>> 32), BE);
        b.putInt(i + 2, (int)v, BE);
    }

    public static void u40(final MutableDirectBuffer b, final int i, final long v) {
        b.putByte(i, (byte)(v >>> 32));
        b.putInt(i + 1, (int)v, BE);
    }

    public static void i64(final MutableDirectBuffer b, final int i, final long v) {
        b.putLong(i, v, BE);
    }
}
