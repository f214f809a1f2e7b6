package org.urdma.transport.gsi;

import java.nio.ByteOrder;
import org.agrona.MutableDirectBuffer;

/**
 * A CM message (one attribute of class 0x07) over a MAD in a buffer: field offsets are those of IBTA chapter 12's
 * tables, counted from the end of the MAD header; bit fields are numbered from the most significant bit of their byte,
 * as the tables (and the kernel's ibta_vol1_c12.h) do. Subclasses name the fields of one message.
 */
public abstract class CmMessage {
    protected MutableDirectBuffer buffer;
    /** Where the MAD (its header) starts. */
    protected int mad;

    /** Points this view at the MAD at {@code offset}. */
    public final void wrap(MutableDirectBuffer b, int offset) {
        this.buffer = b;
        this.mad = offset;
    }

    public final MutableDirectBuffer buffer() {
        return buffer;
    }

    public final int offset() {
        return mad;
    }

    public abstract int attributeId();

    /** Clears the MAD and writes a CM Send header for this message with transaction ID {@code tid}. */
    public final void start(long tid) {
        Mad.start(buffer, mad, Mad.CLASS_CM, Mad.CM_CLASS_VERSION, Mad.METHOD_SEND, tid, attributeId());
    }

    public final long transactionId() {
        return Mad.transactionId(buffer, mad);
    }

    /** Bytes of private data this message carries, and where (offset in the CM data). */
    protected abstract int privateDataOffset();

    public abstract int privateDataLength();

    /** Copies the private data out (all of it: the CM does not carry its length). */
    public final byte[] privateData() {
        byte[] out = new byte[privateDataLength()];
        buffer.getBytes(at(privateDataOffset()), out);
        return out;
    }

    /** Writes {@code data} at the start of the private data; the rest stays zero. */
    public final void privateData(byte[] data, int from, int length) {
        if (length > privateDataLength()) {
            throw new IllegalArgumentException("private data: " + CmAttribute.name(attributeId()) + " carries at most "
                    + privateDataLength() + " bytes, was " + length);
        }
        buffer.putBytes(at(privateDataOffset()), data, from, length);
    }

    protected final int at(int cmOffset) {
        return mad + Mad.HEADER + cmOffset;
    }

    protected final int u8(int off) {
        return buffer.getByte(at(off)) & 0xFF;
    }

    protected final void u8(int off, int v) {
        buffer.putByte(at(off), (byte) v);
    }

    /** {@code width} bits starting {@code bit} bits below the byte's most significant bit. */
    protected final int bits(int off, int bit, int width) {
        return (u8(off) >>> (8 - bit - width)) & ((1 << width) - 1);
    }

    protected final void bits(int off, int bit, int width, int v) {
        int shift = 8 - bit - width;
        int mask = ((1 << width) - 1) << shift;
        u8(off, (u8(off) & ~mask) | ((v << shift) & mask));
    }

    protected final int u16(int off) {
        return buffer.getShort(at(off), ByteOrder.BIG_ENDIAN) & 0xFFFF;
    }

    protected final void u16(int off, int v) {
        buffer.putShort(at(off), (short) v, ByteOrder.BIG_ENDIAN);
    }

    /** The upper 24 bits of the big-endian 32-bit word at {@code off} (a QPN or PSN). */
    protected final int u24(int off) {
        return buffer.getInt(at(off), ByteOrder.BIG_ENDIAN) >>> 8;
    }

    protected final void u24(int off, int v) {
        buffer.putByte(at(off), (byte) (v >>> 16));
        buffer.putByte(at(off) + 1, (byte) (v >>> 8));
        buffer.putByte(at(off) + 2, (byte) v);
    }

    protected final int i32(int off) {
        return buffer.getInt(at(off), ByteOrder.BIG_ENDIAN);
    }

    protected final void i32(int off, int v) {
        buffer.putInt(at(off), v, ByteOrder.BIG_ENDIAN);
    }

    protected final long i64(int off) {
        return buffer.getLong(at(off), ByteOrder.BIG_ENDIAN);
    }

    protected final void i64(int off, long v) {
        buffer.putLong(at(off), v, ByteOrder.BIG_ENDIAN);
    }

    protected final byte[] gid(int off) {
        byte[] g = new byte[16];
        buffer.getBytes(at(off), g);
        return g;
    }

    protected final void gid(int off, byte[] g) {
        if (g.length != 16) throw new IllegalArgumentException("gid: must be 16 bytes, was " + g.length);
        buffer.putBytes(at(off), g);
    }
}
