package org.urdma.transport.pcap;

import java.io.BufferedInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;

import org.agrona.concurrent.UnsafeBuffer;

/**
 * Reads libpcap files: microsecond (0xa1b2c3d4) or nanosecond (0xa1b23c4d) magic, either byte order.
 * Iterate with {@link #next()}; the current record's bytes are in {@link #buffer()} at offset 0 (reused, valid
 * until the next call). Not thread-safe.
 */
public final class PcapReader implements AutoCloseable
{
    private static final int MAX_RECORD = 1 << 24;

    private final InputStream in;
    private final ByteOrder order;
    private final boolean nanos;
    private final int linkType;
    private final int snapLength;
    private final byte[] header = new byte[24];
    private final UnsafeBuffer headerBuffer = new UnsafeBuffer(header);
    private byte[] data = new byte[65536];
    private final UnsafeBuffer dataBuffer = new UnsafeBuffer(data);
    private long timestampNanos;
    private int capturedLength;
    private int originalLength;
    private long index;

    public PcapReader(final Path path) throws IOException
    {
        this(new BufferedInputStream(Files.newInputStream(path), 1 << 16));
    }

    /** Reads and checks the file header; throws {@link IOException} naming the problem if it is not a pcap. */
    public PcapReader(final InputStream in) throws IOException
    {
        this.in = in;
        readFully(header, 24, "file header");
        final int magicLe = headerBuffer.getInt(0, ByteOrder.LITTLE_ENDIAN);
        final int magicBe = headerBuffer.getInt(0, ByteOrder.BIG_ENDIAN);
        if (magicLe == PcapWriter.MAGIC_MICROS || magicLe == PcapWriter.MAGIC_NANOS)
        {
            order = ByteOrder.LITTLE_ENDIAN;
            nanos = magicLe == PcapWriter.MAGIC_NANOS;
        }
        else if (magicBe == PcapWriter.MAGIC_MICROS || magicBe == PcapWriter.MAGIC_NANOS)
        {
            order = ByteOrder.BIG_ENDIAN;
            nanos = magicBe == PcapWriter.MAGIC_NANOS;
        }
        else
        {
            throw new IOException(String.format("pcap: bad magic 0x%08x (expected a1b2c3d4 or a1b23c4d; pcapng is not supported)", magicBe));
        }
        snapLength = headerBuffer.getInt(16, order);
        linkType = headerBuffer.getInt(20, order);
    }

    /** Advances to the next record; false at a clean end of file. Throws on a truncated or corrupt record. */
    public boolean next() throws IOException
    {
        final int first = in.read();
        if (first < 0)
        {
            return false;
        }
        header[0] = (byte)first;
        readFully(header, 1, 15, "record header " + index);
        final long seconds = headerBuffer.getInt(0, order) & 0xFFFF_FFFFL;
        final long fraction = headerBuffer.getInt(4, order) & 0xFFFF_FFFFL;
        final int captured = headerBuffer.getInt(8, order);
        final int original = headerBuffer.getInt(12, order);
        if (captured < 0 || captured > MAX_RECORD)
        {
            throw new IOException("pcap: record " + index + " has captured length " + captured);
        }
        if (data.length < captured)
        {
            data = new byte[captured];
            dataBuffer.wrap(data);
        }
        readFully(data, 0, captured, "record " + index);
        timestampNanos = seconds * 1_000_000_000L + (nanos ? fraction : fraction * 1000L);
        capturedLength = captured;
        originalLength = original;
        index++;
        return true;
    }

    private void readFully(final byte[] b, final int len, final String what) throws IOException
    {
        readFully(b, 0, len, what);
    }

    private void readFully(final byte[] b, final int off, final int len, final String what) throws IOException
    {
        int done = 0;
        while (done < len)
        {
            final int n = in.read(b, off + done, len - done);
            if (n < 0)
            {
                throw new EOFException("pcap: truncated " + what);
            }
            done += n;
        }
    }

    /** The current record's bytes, from offset 0 to {@link #capturedLength()}. */
    public UnsafeBuffer buffer()
    {
        return dataBuffer;
    }

    /** Copy of the current record's bytes (tools and tests; allocates). */
    public byte[] bytes()
    {
        return java.util.Arrays.copyOf(data, capturedLength);
    }

    public long timestampNanos()
    {
        return timestampNanos;
    }

    public int capturedLength()
    {
        return capturedLength;
    }

    public int originalLength()
    {
        return originalLength;
    }

    /** 1-based number of the current record (as Wireshark numbers frames). */
    public long frameNumber()
    {
        return index;
    }

    public boolean nanosecondTimestamps()
    {
        return nanos;
    }

    public ByteOrder byteOrder()
    {
        return order;
    }

    public int linkType()
    {
        return linkType;
    }

    public int snapLength()
    {
        return snapLength;
    }

    @Override
    public void close() throws IOException
    {
        in.close();
    }
}
