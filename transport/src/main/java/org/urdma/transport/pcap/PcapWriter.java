package org.urdma.transport.pcap;

import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;

import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * Writes libpcap files with nanosecond timestamps (magic 0xa1b23c4d, little-endian, link type 1 = Ethernet), or
 * pcapng (Wireshark's default): a Section Header Block, one Interface Description Block (Ethernet, if_tsresol 9 =
 * nanoseconds) and an Enhanced Packet Block per frame. Records are staged in a reusable array, so writing a frame
 * does not allocate. Not thread-safe.
 */
public final class PcapWriter implements AutoCloseable {
    public static final int MAGIC_NANOS = 0xA1B23C4D;
    public static final int MAGIC_MICROS = 0xA1B2C3D4;
    public static final int LINKTYPE_ETHERNET = 1;
    public static final int DEFAULT_SNAPLEN = 262144;
    /** pcapng block types and the Section Header Block's byte-order magic. */
    public static final int PCAPNG_SHB = 0x0A0D0D0A;
    public static final int PCAPNG_IDB = 1;
    public static final int PCAPNG_SPB = 3;
    public static final int PCAPNG_EPB = 6;
    public static final int PCAPNG_BYTE_ORDER_MAGIC = 0x1A2B3C4D;
    private static final int RECORD_HEADER = 16;
    /** EPB: type, total length, interface id, timestamp high and low, captured and original length. */
    private static final int EPB_HEADER = 28;

    /** The file format: classic libpcap or pcapng. */
    public enum Format {
        PCAP, PCAPNG
    }

    private final Format format;

    private final OutputStream out;
    private final int snapLength;
    private byte[] staging = new byte[RECORD_HEADER + 2048];
    private final UnsafeBuffer stagingBuffer = new UnsafeBuffer(staging);
    private long records;

    public PcapWriter(final Path path) throws IOException {
        this(path, Format.PCAP);
    }

    public PcapWriter(final Path path, final Format format) throws IOException {
        this(new BufferedOutputStream(Files.newOutputStream(path), 1 << 16), DEFAULT_SNAPLEN, format);
    }

    /** Writes the libpcap file header to {@code out} at once; {@link #close()} closes {@code out}. */
    public PcapWriter(final OutputStream out, final int snapLength) throws IOException {
        this(out, snapLength, Format.PCAP);
    }

    /** Writes the file header (pcapng: SHB and IDB) to {@code out} at once; {@link #close()} closes {@code out}. */
    public PcapWriter(final OutputStream out, final int snapLength, final Format format) throws IOException {
        if (snapLength <= 0) {
            throw new IllegalArgumentException("snapLength: must be > 0, was " + snapLength);
        }
        this.out = out;
        this.snapLength = snapLength;
        this.format = format;
        if (format == Format.PCAPNG) {
            out.write(pcapngHeader(snapLength));
            return;
        }
        final UnsafeBuffer h = new UnsafeBuffer(new byte[24]);
        h.putInt(0, MAGIC_NANOS, ByteOrder.LITTLE_ENDIAN);
        h.putShort(4, (short)2, ByteOrder.LITTLE_ENDIAN);
        h.putShort(6, (short)4, ByteOrder.LITTLE_ENDIAN);
        h.putInt(8, 0, ByteOrder.LITTLE_ENDIAN);
        h.putInt(12, 0, ByteOrder.LITTLE_ENDIAN);
        h.putInt(16, snapLength, ByteOrder.LITTLE_ENDIAN);
        h.putInt(20, LINKTYPE_ETHERNET, ByteOrder.LITTLE_ENDIAN);
        out.write(h.byteArray());
    }

    /** SHB (version 1.0, section length unknown) and an Ethernet IDB with if_tsresol = 9 (nanoseconds). */
    private static byte[] pcapngHeader(final int snapLength) {
        final UnsafeBuffer h = new UnsafeBuffer(new byte[28 + 32]);
        final ByteOrder le = ByteOrder.LITTLE_ENDIAN;
        h.putInt(0, PCAPNG_SHB, le);
        h.putInt(4, 28, le);
        h.putInt(8, PCAPNG_BYTE_ORDER_MAGIC, le);
        h.putShort(12, (short)1, le);
        h.putShort(14, (short)0, le);
        h.putLong(16, -1L, le);
        h.putInt(24, 28, le);
        h.putInt(28, PCAPNG_IDB, le);
        h.putInt(32, 32, le);
        h.putShort(36, (short)LINKTYPE_ETHERNET, le);
        h.putShort(38, (short)0, le);
        h.putInt(40, snapLength, le);
        h.putShort(44, (short)9, le); // if_tsresol
        h.putShort(46, (short)1, le);
        h.putByte(48, (byte)9); // 10^-9 s; three bytes of padding follow
        h.putInt(52, 0, le); // opt_endofopt
        h.putInt(56, 32, le);
        return h.byteArray();
    }

    public Format format() {
        return format;
    }

    /** Writes one frame captured at {@code timestampNanos} (since the epoch, or any origin the caller chooses). */
    public void write(final long timestampNanos, final DirectBuffer frame, final int offset, final int length) {
        write(timestampNanos, frame, offset, length, length);
    }

    /** Writes the first {@code min(length, snapLength)} bytes of a frame whose original length was {@code originalLength}. */
    public void write(
        final long timestampNanos, final DirectBuffer frame, final int offset, final int length, final int originalLength) {
        if (timestampNanos < 0 || length < 0 || originalLength < length) {
            throw new IllegalArgumentException("pcap record: need timestamp >= 0 and 0 <= length <= originalLength, was " +
                timestampNanos + ", " + length + ", " + originalLength);
        }
        final int captured = Math.min(length, snapLength);
        final int written = format == Format.PCAPNG ? stagePcapng(timestampNanos, frame, offset, captured, originalLength)
            : stagePcap(timestampNanos, frame, offset, captured, originalLength);
        try {
            out.write(staging, 0, written);
        } catch (final IOException e) {
            throw new UncheckedIOException(e);
        }
        records++;
    }

    private void ensureStaging(final int length) {
        if (staging.length < length) {
            staging = new byte[length];
            stagingBuffer.wrap(staging);
        }
    }

    private int stagePcap(
        final long timestampNanos, final DirectBuffer frame, final int offset, final int captured, final int originalLength) {
        ensureStaging(RECORD_HEADER + captured);
        stagingBuffer.putInt(0, (int)(timestampNanos / 1_000_000_000L), ByteOrder.LITTLE_ENDIAN);
        stagingBuffer.putInt(4, (int)(timestampNanos % 1_000_000_000L), ByteOrder.LITTLE_ENDIAN);
        stagingBuffer.putInt(8, captured, ByteOrder.LITTLE_ENDIAN);
        stagingBuffer.putInt(12, originalLength, ByteOrder.LITTLE_ENDIAN);
        frame.getBytes(offset, staging, RECORD_HEADER, captured);
        return RECORD_HEADER + captured;
    }

    /** An Enhanced Packet Block on interface 0; the timestamp counts nanoseconds (the IDB's if_tsresol). */
    private int stagePcapng(
        final long timestampNanos, final DirectBuffer frame, final int offset, final int captured, final int originalLength) {
        final int padded = (captured + 3) & ~3;
        final int total = EPB_HEADER + padded + 4;
        ensureStaging(total);
        final ByteOrder le = ByteOrder.LITTLE_ENDIAN;
        stagingBuffer.putInt(0, PCAPNG_EPB, le);
        stagingBuffer.putInt(4, total, le);
        stagingBuffer.putInt(8, 0, le);
        stagingBuffer.putInt(12, (int)(timestampNanos >>> 32), le);
        stagingBuffer.putInt(16, (int)timestampNanos, le);
        stagingBuffer.putInt(20, captured, le);
        stagingBuffer.putInt(24, originalLength, le);
        frame.getBytes(offset, staging, EPB_HEADER, captured);
        stagingBuffer.setMemory(EPB_HEADER + captured, padded - captured, (byte)0);
        stagingBuffer.putInt(EPB_HEADER + padded, total, le);
        return total;
    }

    public long records() {
        return records;
    }

    public void flush() throws IOException {
        out.flush();
    }

    @Override
    public void close() throws IOException {
        out.close();
    }
}
