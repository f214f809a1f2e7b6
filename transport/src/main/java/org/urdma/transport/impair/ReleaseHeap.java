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

    // heap entries, by heap position; grown with the cells (a frame takes at least one)
    private long[] time;
    private long[] seq;
    private int[] handle;
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
        int initial = Math.toIntExact(initialBytes / cellBytes);
        this.cells = new CellStore(initial, Math.toIntExact(maxBytes / cellBytes), cellBytes);
        entries(initial);
    }

    private void entries(int n) {
        time = time == null ? new long[n] : Arrays.copyOf(time, n);
        seq = seq == null ? new long[n] : Arrays.copyOf(seq, n);
        handle = handle == null ? new int[n] : Arrays.copyOf(handle, n);
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
        return size == 0 ? Long.MAX_VALUE : time[0];
    }

    /** Length of the earliest frame (only when not empty). */
    public int peekLength() {
        return length[0];
    }

    /** The owner's flag of the earliest frame (only when not empty). */
    public boolean peekFlag() {
        return flag[0];
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
        int head = cells.store(src, offset, len);
        if (head == NONE) {
            refused++;
            return false;
        }
        if (size == time.length) {
            entries(Math.min(cells.maxCells(), 2 * size));
        }
        int i = size++;
        time[i] = releaseNs;
        seq[i] = nextSeq++;
        handle[i] = head;
        length[i] = len;
        corruptByte[i] = flipByte;
        corruptMask[i] = flipMask;
        this.flag[i] = flag;
        siftUp(i);
        return true;
    }

    /** Copies the earliest frame to {@code dst} (corruption applied), frees it, and returns its length. */
    public int pollInto(MutableDirectBuffer dst, int dstOffset) {
        if (size == 0) {
            throw new IllegalStateException("delay line is empty");
        }
        int len = length[0];
        cells.copyOut(handle[0], len, dst, dstOffset);
        cells.free(handle[0]);
        int flip = corruptByte[0];
        if (flip >= 0 && flip < len) {
            dst.putByte(dstOffset + flip, (byte) (dst.getByte(dstOffset + flip) ^ corruptMask[0]));
        }
        size--;
        if (size > 0) {
            move(size, 0);
            siftDown(0);
        }
        return len;
    }

    private boolean before(int a, int b) {
        return time[a] < time[b] || (time[a] == time[b] && seq[a] < seq[b]);
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

    private void move(int from, int to) {
        time[to] = time[from];
        seq[to] = seq[from];
        handle[to] = handle[from];
        length[to] = length[from];
        corruptByte[to] = corruptByte[from];
        corruptMask[to] = corruptMask[from];
        flag[to] = flag[from];
    }

    private void swap(int a, int b) {
        long t = time[a];
        time[a] = time[b];
        time[b] = t;
        long s = seq[a];
        seq[a] = seq[b];
        seq[b] = s;
        int h = handle[a];
        handle[a] = handle[b];
        handle[b] = h;
        int l = length[a];
        length[a] = length[b];
        length[b] = l;
        int c = corruptByte[a];
        corruptByte[a] = corruptByte[b];
        corruptByte[b] = c;
        int m = corruptMask[a];
        corruptMask[a] = corruptMask[b];
        corruptMask[b] = m;
        boolean f = flag[a];
        flag[a] = flag[b];
        flag[b] = f;
    }
}
