package org.urdma.transport.impair;

import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;

import java.util.Arrays;

/**
 * Frames an impairment holds until their release time (netem's tfifo): off-heap {@link CellStore} cells
 * for the bytes and a binary min-heap ordered by (release time, offer order), so frames leave in time
 * order and ties in the order they were offered. Used per impaired direction by the memory link and the
 * real-time switch. Storage starts at {@code initialBytes} and doubles up to {@code maxBytes} (a frame
 * that does not fit then is refused and counted); once grown, nothing is allocated.
 */
public final class ReleaseHeap {
    private static final int NONE = CellStore.NONE;

    private final CellStore cells;

    /** The heap: frame handles (first cells), earliest at 0. */
    private int[] heap;
    // per frame, by handle (as the switch's packet memory keeps them); grown with the cells
    private long[] time;
    private long[] seq;
    private int[] length;
    private int[] corruptByte;
    private int[] corruptMask;
    private boolean[] flag;
    private int size;
    private long nextSeq;
    private long refused;

    /** A delay line of {@code bytes} bytes of storage in cells of {@code cellBytes}, all made now. */
    public ReleaseHeap(long bytes, int cellBytes) {
        this(bytes, bytes, cellBytes);
    }

    /** A delay line that starts with {@code initialBytes} of cells of {@code cellBytes} and grows up to {@code maxBytes}. */
    public ReleaseHeap(long initialBytes, long maxBytes, int cellBytes) {
        if (cellBytes < 64) throw new IllegalArgumentException("cellBytes: must be >= 64, was " + cellBytes);
        if (maxBytes < cellBytes) {
            throw new IllegalArgumentException("maxBytes: must be >= cellBytes (" + cellBytes + "), was " + maxBytes);
        }
        if (initialBytes < cellBytes || initialBytes > maxBytes) {
            throw new IllegalArgumentException("initialBytes: must be in " + cellBytes + ".." + maxBytes + ", was " + initialBytes);
        }
        this.cells = new CellStore(Math.toIntExact(initialBytes / cellBytes), Math.toIntExact(maxBytes / cellBytes), cellBytes);
        frames(cells.cells());
    }

    /** Room for per-frame data of {@code n} handles. */
    private void frames(int n) {
        heap = heap == null ? new int[n] : Arrays.copyOf(heap, n);
        time = time == null ? new long[n] : Arrays.copyOf(time, n);
        seq = seq == null ? new long[n] : Arrays.copyOf(seq, n);
        length = length == null ? new int[n] : Arrays.copyOf(length, n);
        corruptByte = corruptByte == null ? new int[n] : Arrays.copyOf(corruptByte, n);
        corruptMask = corruptMask == null ? new int[n] : Arrays.copyOf(corruptMask, n);
        flag = flag == null ? new boolean[n] : Arrays.copyOf(flag, n);
    }

    /** Bytes of storage made so far (grows up to the limit). */
    public long capacityBytes() {
        return (long) cells.cells() * cells.cellBytes();
    }

    public int size() {
        return size;
    }

    /** Frames refused because the line was full. */
    public long refused() {
        return refused;
    }

    /** Release time of the earliest frame, or {@link Long#MAX_VALUE} if empty. */
    public long nextRelease() {
        return size == 0 ? Long.MAX_VALUE : time[heap[0]];
    }

    /** Length of the earliest frame (only when not empty). */
    public int peekLength() {
        return length[heap[0]];
    }

    /** The owner's flag of the earliest frame (only when not empty). */
    public boolean peekFlag() {
        return flag[heap[0]];
    }

    /** {@link #add(DirectBuffer, int, int, long, int, int, boolean)} with the flag clear. */
    public boolean add(DirectBuffer src, int offset, int len, long releaseNs, int flipByte, int flipMask) {
        return add(src, offset, len, releaseNs, flipByte, flipMask, false);
    }

    /**
     * Holds a copy of a frame until {@code releaseNs}; {@code flipByte} (or -1) is XORed with
     * {@code flipMask} when the frame leaves; {@code flag} is the owner's, kept with the frame (the memory
     * link: whether it was sent without an ICRC). Returns false (and counts) if there is no room.
     */
    public boolean add(DirectBuffer src, int offset, int len, long releaseNs, int flipByte, int flipMask, boolean flag) {
        int h = cells.store(src, offset, len);
        if (h == NONE) {
            refused++;
            return false;
        }
        if (cells.cells() > time.length) {
            frames(cells.cells());
        }
        time[h] = releaseNs;
        seq[h] = nextSeq++;
        length[h] = len;
        corruptByte[h] = flipByte;
        corruptMask[h] = flipMask;
        this.flag[h] = flag;
        heap[size] = h;
        siftUp(size++);
        return true;
    }

    /** Copies the earliest frame to {@code dst} (corruption applied), frees it, and returns its length. */
    public int pollInto(MutableDirectBuffer dst, int dstOffset) {
        if (size == 0) {
            throw new IllegalStateException("delay line is empty");
        }
        int h = heap[0];
        int len = length[h];
        cells.copyOut(h, len, dst, dstOffset);
        cells.free(h);
        int flip = corruptByte[h];
        if (flip >= 0 && flip < len) {
            dst.putByte(dstOffset + flip, (byte) (dst.getByte(dstOffset + flip) ^ corruptMask[h]));
        }
        size--;
        if (size > 0) {
            heap[0] = heap[size];
            siftDown(0);
        }
        return len;
    }

    /** Whether the frame at heap position {@code a} leaves before the one at {@code b}. */
    private boolean before(int a, int b) {
        int x = heap[a], y = heap[b];
        return time[x] < time[y] || (time[x] == time[y] && seq[x] < seq[y]);
    }

    private void siftUp(int i) {
        while (i > 0) {
            int parent = (i - 1) >>> 1;
            if (!before(i, parent)) {
                break;
            }
            swap(i, parent);
            i = parent;
        }
    }

    private void siftDown(int i) {
        while (true) {
            int left = 2 * i + 1;
            if (left >= size) {
                return;
            }
            int child = left + 1 < size && before(left + 1, left) ? left + 1 : left;
            if (!before(child, i)) {
                return;
            }
            swap(i, child);
            i = child;
        }
    }

    private void swap(int a, int b) {
        int h = heap[a];
        heap[a] = heap[b];
        heap[b] = h;
    }
}
