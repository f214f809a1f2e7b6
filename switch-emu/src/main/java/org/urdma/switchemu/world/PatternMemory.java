package org.urdma.switchemu.world;

import static org.urdma.nativeio.LinuxConstants.MAP_ANONYMOUS;
import static org.urdma.nativeio.LinuxConstants.MAP_NORESERVE;
import static org.urdma.nativeio.LinuxConstants.MAP_PRIVATE;
import static org.urdma.nativeio.LinuxConstants.PROT_READ;
import static org.urdma.nativeio.LinuxConstants.PROT_WRITE;

import java.lang.foreign.MemorySegment;
import java.util.Arrays;
import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;
import org.urdma.nativeio.Libc;
import org.urdma.transport.packet.Payloads;

/**
 * Described payloads: frames of a simulated world carry a description of their payload instead of the bytes, so a
 * path with a gigabyte in flight holds kilobytes of frames. Memory that takes part is a pattern region: its content is
 * defined as a seeded pattern (byte {@code o} of pattern {@code p} is {@link #patternByte}), it is mapped
 * ({@code MAP_NORESERVE}) so the engine's keys, bounds and addresses are real, but its pages are never touched, so a
 * gigabyte of it costs address space, not RAM.
 * <p>
 * A payload taken from a pattern region is written as {@link #MAGIC} and entries {@code (length, pattern, offset)};
 * bytes from other memory (inline data, small buffers) travel as they are when the packet starts with them, or as a
 * literal entry after a described one. Placing a described entry into a pattern region checks it is the content the
 * region holds at that address (same pattern, same offset) and records the bytes as written, or counts a mismatch;
 * into ordinary memory it writes the pattern's bytes. Placement, keys and bounds are the engine's, unchanged. A plain
 * payload that happens to start with the 8 magic bytes would be misread: it is sim-only and the odds are 2^-64.
 */
final class PatternMemory implements Payloads, AutoCloseable {
    /** First 8 payload bytes of a described payload ("URDMADSC"). */
    static final long MAGIC = 0x4353_444D_4452_5255L;
    private static final int LITERAL = 0;
    private static final int ENTRY = 16;

    private long[] base = new long[0];
    private long[] size = new long[0];
    private int[] pattern = new int[0];
    private Coverage[] written = new Coverage[0];
    private long[] mismatches = new long[0];
    private long described;
    private long literal;

    /**
     * Maps {@code bytes} of address space whose content is pattern {@code patternId} (> 0); the mapping lives until
     * {@link #close}.
     */
    @SuppressWarnings("restricted") // reinterpret of the mapping mmap returned
    MemorySegment allocate(long bytes, int patternId) {
        if (bytes <= 0) throw new IllegalArgumentException("size: must be > 0 bytes, was " + bytes);
        if (patternId <= 0) throw new IllegalArgumentException("pattern: must be > 0, was " + patternId);
        MemorySegment m = Libc.mmap(MemorySegment.NULL, bytes, PROT_READ | PROT_WRITE,
                MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
        if (m.address() == Libc.MAP_FAILED) {
            throw new IllegalStateException("pattern memory: mmap of " + bytes + " bytes failed, errno " + Libc.errno());
        }
        int n = base.length;
        int i = 0;
        while (i < n && base[i] < m.address()) i++;
        base = insert(base, i, m.address());
        size = insert(size, i, bytes);
        int[] p = Arrays.copyOf(pattern, n + 1);
        System.arraycopy(pattern, i, p, i + 1, n - i);
        p[i] = patternId;
        pattern = p;
        Coverage[] w = Arrays.copyOf(written, n + 1);
        System.arraycopy(written, i, w, i + 1, n - i);
        w[i] = new Coverage();
        written = w;
        mismatches = insert(mismatches, i, 0);
        return m.reinterpret(bytes);
    }

    private static long[] insert(long[] a, int i, long v) {
        long[] b = Arrays.copyOf(a, a.length + 1);
        System.arraycopy(a, i, b, i + 1, a.length - i);
        b[i] = v;
        return b;
    }

    /** Byte {@code offset} of pattern {@code patternId}. */
    static byte patternByte(int patternId, long offset) {
        return (byte) (word(patternId, offset >>> 3) >>> ((offset & 7) << 3));
    }

    private static long word(int patternId, long index) {
        long z = patternId * 0x9E37_79B9_7F4A_7C15L + index * 0xBF58_476D_1CE4_E5B9L;
        z = (z ^ (z >>> 30)) * 0xBF58_476D_1CE4_E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D0_49BB_1331_11EBL;
        return z ^ (z >>> 31);
    }

    /** Whether bytes [offset, offset+length) of pattern region {@code seg} were all written, and never wrongly. */
    boolean verify(MemorySegment seg, long offset, long length) {
        int r = region(seg.address() + offset, length);
        if (r < 0) throw new IllegalArgumentException("segment: not pattern memory of this world");
        return mismatches[r] == 0 && written[r].covers(seg.address() - base[r] + offset,
                seg.address() - base[r] + offset + length);
    }

    /** Placements into {@code seg}'s region whose content was not the region's own. */
    long mismatches(MemorySegment seg) {
        int r = region(seg.address(), 0);
        return r < 0 ? 0 : mismatches[r];
    }

    /** Payload chunks described, and chunks that travelled as bytes, so far. */
    long describedChunks() {
        return described;
    }

    long literalChunks() {
        return literal;
    }

    /** Address space mapped for pattern regions. */
    long mappedBytes() {
        long n = 0;
        for (long s : size) n += s;
        return n;
    }

    /** The pattern region holding all of [address, address+length), or -1. */
    private int region(long address, long length) {
        int lo = 0;
        int hi = base.length;
        while (lo < hi) {
            int mid = (lo + hi) >>> 1;
            if (base[mid] <= address) lo = mid + 1;
            else hi = mid;
        }
        int i = lo - 1;
        return i >= 0 && address - base[i] + length <= size[i] ? i : -1;
    }

    private int region(DirectBuffer b, int offset, int length) {
        return b.byteArray() != null || base.length == 0 ? -1 : region(b.addressOffset() + offset, length);
    }

    @Override
    public int put(MutableDirectBuffer frame, int payloadAt, int taken, DirectBuffer src, int srcOffset, int length) {
        int r = region(src, srcOffset, length);
        int at = payloadAt + taken;
        if (taken == 0 && r < 0 || taken > 0 && frame.getLong(payloadAt) != MAGIC) { // a plain payload stays plain
            literal++;
            if (r < 0) {
                frame.putBytes(at, src, srcOffset, length);
            } else {
                long o = src.addressOffset() + srcOffset - base[r];
                for (int i = 0; i < length; i++) frame.putByte(at + i, patternByte(pattern[r], o + i));
            }
            return length;
        }
        int header = 0;
        if (taken == 0) {
            frame.putLong(at, MAGIC);
            header = 8;
            at += 8;
        }
        frame.putInt(at, length);
        if (r < 0) {
            literal++;
            int padded = (length + 7) & ~7;
            frame.putInt(at + 4, LITERAL);
            frame.putBytes(at + 8, src, srcOffset, length);
            frame.setMemory(at + 8 + length, padded - length, (byte) 0);
            return header + 8 + padded;
        }
        described++;
        frame.putInt(at + 4, pattern[r]);
        frame.putLong(at + 8, src.addressOffset() + srcOffset - base[r]);
        return header + ENTRY;
    }

    @Override
    public void get(DirectBuffer frame, int payloadAt, int within, MutableDirectBuffer dst, int dstOffset, int length) {
        if (length == 0) return;
        if (!isDescribed(frame, payloadAt, Integer.MAX_VALUE)) {
            place(frame, payloadAt + within, dst, dstOffset, length);
            return;
        }
        int at = payloadAt + 8;
        long pos = 0;
        while (length > 0) {
            int len = frame.getInt(at);
            int id = frame.getInt(at + 4);
            if (within < pos + len) {
                int skip = (int) (within - pos);
                int n = Math.min(len - skip, length);
                if (id == LITERAL) {
                    place(frame, at + 8 + skip, dst, dstOffset, n);
                } else {
                    place(id, frame.getLong(at + 8) + skip, dst, dstOffset, n);
                }
                within += n;
                dstOffset += n;
                length -= n;
            }
            pos += len;
            at += id == LITERAL ? 8 + ((len + 7) & ~7) : ENTRY;
        }
    }

    @Override
    public int length(DirectBuffer frame, int payloadAt, int frameBytes) {
        if (!isDescribed(frame, payloadAt, frameBytes)) return frameBytes;
        int at = payloadAt + 8;
        int end = payloadAt + frameBytes;
        int total = 0;
        while (at + 8 <= end) {
            int len = frame.getInt(at);
            int id = frame.getInt(at + 4);
            if (len < 0) return frameBytes; // not ours after all: the engine sees the bytes
            total += len;
            at += id == LITERAL ? 8 + ((len + 7) & ~7) : ENTRY;
        }
        return total;
    }

    private static boolean isDescribed(DirectBuffer frame, int payloadAt, int frameBytes) {
        return frameBytes >= 16 && frame.getLong(payloadAt) == MAGIC;
    }

    /** Bytes that travelled as they are, into {@code dst}. */
    private void place(DirectBuffer src, int srcOffset, MutableDirectBuffer dst, int dstOffset, int n) {
        int r = region(dst, dstOffset, n);
        if (r < 0) {
            dst.putBytes(dstOffset, src, srcOffset, n);
            return;
        }
        long o = dst.addressOffset() + dstOffset - base[r];
        for (int i = 0; i < n; i++) {
            if (src.getByte(srcOffset + i) != patternByte(pattern[r], o + i)) {
                mismatches[r]++;
                return;
            }
        }
        written[r].add(o, o + n);
    }

    /** {@code n} bytes of pattern {@code id} from {@code offset}, into {@code dst}. */
    private void place(int id, long offset, MutableDirectBuffer dst, int dstOffset, int n) {
        int r = region(dst, dstOffset, n);
        if (r < 0) {
            for (int i = 0; i < n; i++) dst.putByte(dstOffset + i, patternByte(id, offset + i));
            return;
        }
        long o = dst.addressOffset() + dstOffset - base[r];
        if (pattern[r] != id || o != offset) {
            mismatches[r]++;
            return;
        }
        written[r].add(o, o + n);
    }

    @Override
    public void close() {
        for (int i = 0; i < base.length; i++) Libc.munmap(MemorySegment.ofAddress(base[i]), size[i]);
        base = new long[0];
        size = new long[0];
    }
}
