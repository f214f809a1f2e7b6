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
 * Writes libpcap files with nanosecond timestamps (magic 0xa1b23c4d, little-endian, link type 1 = Ethernet).
 * Records are staged in a reusable array, so writing a frame does not allocate. Not thread-safe.
 */
public final class PcapWriter implements AutoCloseable
{
    public static final int MAGIC_NANOS = 0xA1B23C4D;
    public static final int MAGIC_MICROS = 0xA1B2C3D4;
    public static final int LINKTYPE_ETHERNET = 1;
    public static final int DEFAULT_SNAPLEN = 262144;
    private static final int RECORD_HEADER = 16;

    private final OutputStream out;
    private final int snapLength;
    private byte[] staging = new byte[RECORD_HEADER + 2048];
    private final UnsafeBuffer stagingBuffer = new UnsafeBuffer(staging);
    private long records;

    public PcapWriter(final Path path) throws IOException
    {
        this(new BufferedOutputStream(Files.newOutputStream(path), 1 << 16), DEFAULT_SNAPLEN);
    }

    /** Writes the file header to {@code out} at once; {@link #close()} closes {@code out}. */
    public PcapWriter(final OutputStream out, final int snapLength) throws IOException
    {
        if (snapLength <= 0)
        {
            throw new IllegalArgumentException("snapLength: must be > 0, was " + snapLength);
        }
        this.out = out;
        this.snapLength = snapLength;
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

    /** Writes one frame captured at {@code timestampNanos} (since the epoch, or any origin the caller chooses). */
    public void write(final long timestampNanos, final DirectBuffer frame, final int offset, final int length)
    {
        write(timestampNanos, frame, offset, length, length);
    }

    /** Writes the first {@code min(length, snapLength)} bytes of a frame whose original length was {@code originalLength}. */
    public void write(
        final long timestampNanos, final DirectBuffer frame, final int offset, final int length, final int originalLength)
    {
        if (timestampNanos < 0 || length < 0 || originalLength < length)
        {
            throw new IllegalArgumentException("pcap record: need timestamp >= 0 and 0 <= length <= originalLength, was " +
                timestampNanos + ", " + length + ", " + originalLength);
        }
        final int captured = Math.min(length, snapLength);
        if (staging.length < RECORD_HEADER + captured)
        {
            staging = new byte[RECORD_HEADER + captured];
            stagingBuffer.wrap(staging);
        }
        stagingBuffer.putInt(0, (int)(timestampNanos / 1_000_000_000L), ByteOrder.LITTLE_ENDIAN);
        stagingBuffer.putInt(4, (int)(timestampNanos % 1_000_000_000L), ByteOrder.LITTLE_ENDIAN);
        stagingBuffer.putInt(8, captured, ByteOrder.LITTLE_ENDIAN);
        stagingBuffer.putInt(12, originalLength, ByteOrder.LITTLE_ENDIAN);
        frame.getBytes(offset, staging, RECORD_HEADER, captured);
        try
        {
            out.write(staging, 0, RECORD_HEADER + captured);
        }
        catch (final IOException e)
        {
            throw new UncheckedIOException(e);
        }
        records++;
    }

    public long records()
    {
        return records;
    }

    public void flush() throws IOException
    {
        out.flush();
    }

    @Override
    public void close() throws IOException
    {
        out.close();
    }
}
