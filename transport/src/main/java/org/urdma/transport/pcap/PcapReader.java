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
 * Reads libpcap files: microsecond (0xa1b2c3d4) or nanosecond (0xa1b23c4d) magic, either byte order; and pcapng
 * (Wireshark's and dumpcap's default), told apart by the first four bytes: Enhanced, Simple and obsolete Packet
 * Blocks, each interface's link type, snap length and if_tsresol, either byte order, several sections; other
 * blocks are skipped. Iterate with {@link #next()}; the current record's bytes are in {@link #buffer()} at offset 0 (reused, valid
 * until the next call). Not thread-safe.
 */
public final class PcapReader implements AutoCloseable {
    private static final int MAX_RECORD = 1 << 24;

    private static final int MAX_BLOCK = MAX_RECORD + 64;

    private final InputStream in;
    private final boolean pcapng;
    private ByteOrder order;
    private final boolean nanos;
    private int linkType;
    private int snapLength;
    /** pcapng: per interface of the current section, its link type, snap length and if_tsresol byte. */
    private final java.util.List<int[]> interfaces = new java.util.ArrayList<>();
    private byte[] block = new byte[1 << 16];
    private UnsafeBuffer blockBuffer = new UnsafeBuffer(block);
    private final byte[] header = new byte[24];
    private final UnsafeBuffer headerBuffer = new UnsafeBuffer(header);
    private byte[] data = new byte[65536];
    private final UnsafeBuffer dataBuffer = new UnsafeBuffer(data);
    private long timestampNanos;
    private int capturedLength;
    private int originalLength;
    private long index;

    public PcapReader(final Path path) throws IOException {
        this(new BufferedInputStream(Files.newInputStream(path), 1 << 16));
    }

    /** Reads and checks the file header; throws {@link IOException} naming the problem if it is not a pcap. */
    public PcapReader(final InputStream in) throws IOException {
        this.in = in;
        readFully(header, 4, "file header");
        final int magicLe = headerBuffer.getInt(0, ByteOrder.LITTLE_ENDIAN);
        final int magicBe = headerBuffer.getInt(0, ByteOrder.BIG_ENDIAN);
        if (magicLe == PcapWriter.PCAPNG_SHB) {
            // pcapng: the SHB's byte-order magic says the section's order; its first IDB gives the link type
            pcapng = true;
            nanos = true;
            readSectionHeader();
            linkType = -1;
            snapLength = 0;
            return;
        }
        pcapng = false;
        readFully(header, 4, 20, "file header");
        if (magicLe == PcapWriter.MAGIC_MICROS || magicLe == PcapWriter.MAGIC_NANOS) {
            order = ByteOrder.LITTLE_ENDIAN;
            nanos = magicLe == PcapWriter.MAGIC_NANOS;
        } else if (magicBe == PcapWriter.MAGIC_MICROS || magicBe == PcapWriter.MAGIC_NANOS) {
            order = ByteOrder.BIG_ENDIAN;
            nanos = magicBe == PcapWriter.MAGIC_NANOS;
        } else {
            throw new IOException(String.format(
                "not a capture file: bad magic 0x%08x (expected pcap a1b2c3d4/a1b23c4d or pcapng 0a0d0d0a)", magicBe));
        }
        snapLength = headerBuffer.getInt(16, order);
        linkType = headerBuffer.getInt(20, order);
    }

    /** After the SHB's block type: its length and byte-order magic, then the rest of the block (options) skipped. */
    private void readSectionHeader() throws IOException {
        readFully(header, 0, 8, "pcapng section header");
        final int bom = headerBuffer.getInt(4, ByteOrder.LITTLE_ENDIAN);
        if (bom == PcapWriter.PCAPNG_BYTE_ORDER_MAGIC) {
            order = ByteOrder.LITTLE_ENDIAN;
        } else if (bom == Integer.reverseBytes(PcapWriter.PCAPNG_BYTE_ORDER_MAGIC)) {
            order = ByteOrder.BIG_ENDIAN;
        } else {
            throw new IOException(String.format("pcapng: bad byte-order magic 0x%08x in a section header", bom));
        }
        final int total = headerBuffer.getInt(0, order);
        if (total < 28 || total > MAX_BLOCK || (total & 3) != 0) {
            throw new IOException("pcapng: section header block length " + total);
        }
        readBlockBody(total - 12, "section header");
        interfaces.clear();
    }

    /** Reads {@code length} bytes of a block (after its type and length) into {@link #block}. */
    private void readBlockBody(final int length, final String what) throws IOException {
        if (block.length < length) {
            block = new byte[length];
            blockBuffer = new UnsafeBuffer(block);
        }
        readFully(block, 0, length, what);
    }

    /** pcapng: reads blocks until a packet; false at a clean end of file. */
    private boolean nextPcapng() throws IOException {
        while (true) {
            final int first = in.read();
            if (first < 0) {
                return false;
            }
            header[0] = (byte)first;
            readFully(header, 1, 3, "block type after frame " + index);
            final int type = headerBuffer.getInt(0, order);
            if (type == PcapWriter.PCAPNG_SHB) {
                readSectionHeader();
                continue;
            }
            readFully(header, 4, 4, "block length after frame " + index);
            final int total = headerBuffer.getInt(4, order);
            if (total < 12 || total > MAX_BLOCK || (total & 3) != 0) {
                throw new IOException(String.format("pcapng: block of type 0x%x after frame %d has length %d", type, index, total));
            }
            final int body = total - 12;
            readBlockBody(body + 4, "block of type " + type);
            if (blockBuffer.getInt(body, order) != total) {
                throw new IOException("pcapng: block of type " + type + " after frame " + index + ": trailing length differs");
            }
            switch (type) {
                case PcapWriter.PCAPNG_IDB -> interfaces.add(interfaceDescription(body));
                case PcapWriter.PCAPNG_EPB, 2 -> { // 2: the obsolete Packet Block (16-bit interface id, drops count)
                    final int iface = type == 2 ? blockBuffer.getShort(0, order) & 0xFFFF : blockBuffer.getInt(0, order);
                    final long ts = (blockBuffer.getInt(4, order) & 0xFFFF_FFFFL) << 32 | (blockBuffer.getInt(8, order) & 0xFFFF_FFFFL);
                    final int captured = blockBuffer.getInt(12, order);
                    if (captured < 0 || captured > body - 20) {
                        throw new IOException("pcapng: packet block " + (index + 1) + " has captured length " + captured);
                    }
                    final int[] idb = iface(iface);
                    record(20, captured, blockBuffer.getInt(16, order), nanosOf(ts, idb[2]), idb);
                    return true;
                }
                case PcapWriter.PCAPNG_SPB -> {
                    // no timestamp; captured = the original length cut to the snap length (and to the block)
                    final int[] idb = iface(0);
                    final int original = blockBuffer.getInt(0, order);
                    int captured = Math.min(original, body - 4);
                    if (idb[1] > 0) {
                        captured = Math.min(captured, idb[1]);
                    }
                    record(4, Math.max(captured, 0), original, 0, idb);
                    return true;
                }
                default -> {
                    // name resolution, statistics, decryption secrets, custom blocks: not frames
                }
            }
        }
    }

    private int[] iface(final int id) throws IOException {
        if (id < 0 || id >= interfaces.size()) {
            throw new IOException("pcapng: packet block " + (index + 1) + " names interface " + id + ", the section describes " +
                interfaces.size());
        }
        return interfaces.get(id);
    }

    /** An IDB's link type, snap length and if_tsresol (option 9; default 6 = microseconds). */
    private int[] interfaceDescription(final int body) throws IOException {
        if (body < 8) {
            throw new IOException("pcapng: interface description block too short");
        }
        final int link = blockBuffer.getShort(0, order) & 0xFFFF;
        final int snap = blockBuffer.getInt(4, order);
        int tsresol = 6;
        int at = 8;
        while (at + 4 <= body) {
            final int code = blockBuffer.getShort(at, order) & 0xFFFF;
            final int len = blockBuffer.getShort(at + 2, order) & 0xFFFF;
            if (code == 0) {
                break;
            }
            if (code == 9 && len >= 1) {
                tsresol = blockBuffer.getByte(at + 4) & 0xFF;
            }
            at += 4 + ((len + 3) & ~3);
        }
        return new int[] {link, snap, tsresol};
    }

    /** A pcapng timestamp in units of the interface's if_tsresol (10^-n, or 2^-n with the top bit set), as nanoseconds. */
    static long nanosOf(final long ts, final int tsresol) {
        final int n = tsresol & 0x7F;
        if ((tsresol & 0x80) != 0) {
            final long whole = n >= 64 ? 0 : ts >>> n;
            final long fraction = n >= 64 ? ts : ts & ((1L << n) - 1);
            return whole * 1_000_000_000L + (n >= 64 ? 0 : (long)(fraction * 1e9 / Math.pow(2, n)));
        }
        if (n <= 9) {
            long scale = 1;
            for (int i = n; i < 9; i++) {
                scale *= 10;
            }
            return ts * scale;
        }
        long div = 1;
        for (int i = 9; i < n && i < 27; i++) {
            div *= 10;
        }
        return ts / div;
    }

    private void record(final int offset, final int captured, final int original, final long ts, final int[] idb) {
        if (data.length < captured) {
            data = new byte[captured];
            dataBuffer.wrap(data);
        }
        System.arraycopy(block, offset, data, 0, captured);
        timestampNanos = ts;
        capturedLength = captured;
        originalLength = original;
        linkType = idb[0];
        snapLength = idb[1];
        index++;
    }

    /** Advances to the next record; false at a clean end of file. Throws on a truncated or corrupt record. */
    public boolean next() throws IOException {
        if (pcapng) {
            return nextPcapng();
        }
        final int first = in.read();
        if (first < 0) {
            return false;
        }
        header[0] = (byte)first;
        readFully(header, 1, 15, "record header " + index);
        final long seconds = headerBuffer.getInt(0, order) & 0xFFFF_FFFFL;
        final long fraction = headerBuffer.getInt(4, order) & 0xFFFF_FFFFL;
        final int captured = headerBuffer.getInt(8, order);
        final int original = headerBuffer.getInt(12, order);
        if (captured < 0 || captured > MAX_RECORD) {
            throw new IOException("pcap: record " + index + " has captured length " + captured);
        }
        if (data.length < captured) {
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

    private void readFully(final byte[] b, final int len, final String what) throws IOException {
        readFully(b, 0, len, what);
    }

    private void readFully(final byte[] b, final int off, final int len, final String what) throws IOException {
        int done = 0;
        while (done < len) {
            final int n = in.read(b, off + done, len - done);
            if (n < 0) {
                throw new EOFException("pcap: truncated " + what);
            }
            done += n;
        }
    }

    /** The current record's bytes, from offset 0 to {@link #capturedLength()}. */
    public UnsafeBuffer buffer() {
        return dataBuffer;
    }

    /** Copy of the current record's bytes (tools and tests; allocates). */
    public byte[] bytes() {
        return java.util.Arrays.copyOf(data, capturedLength);
    }

    public long timestampNanos() {
        return timestampNanos;
    }

    public int capturedLength() {
        return capturedLength;
    }

    public int originalLength() {
        return originalLength;
    }

    /** 1-based number of the current record (as Wireshark numbers frames). */
    public long frameNumber() {
        return index;
    }

    public boolean nanosecondTimestamps() {
        return nanos;
    }

    public ByteOrder byteOrder() {
        return order;
    }

    /** Whether the file is pcapng (else classic libpcap). */
    public boolean pcapng() {
        return pcapng;
    }

    /** The link type (pcapng: of the current record's interface; -1 before the first record). */
    public int linkType() {
        return linkType;
    }

    public int snapLength() {
        return snapLength;
    }

    @Override
    public void close() throws IOException {
        in.close();
    }
}
