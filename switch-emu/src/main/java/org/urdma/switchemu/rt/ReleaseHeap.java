package org.urdma.switchemu.rt;

import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;
import org.urdma.switchemu.core.CellStore;

/**
 * Frames held until a release time (netem's tfifo): preallocated off-heap cells for the bytes and a
 * binary min-heap ordered by (release time, arrival order). The real-time driver keeps one per impaired
 * port direction. Nothing is allocated after construction; a frame that does not fit is refused.
 */
public final class ReleaseHeap {
    private static final int NONE = CellStore.NONE;

    private final CellStore cells;

    // heap entries, by heap position
    private final long[] time;
    private final long[] seq;
    private final int[] handle;
    private final int[] length;
    private final int[] corruptByte;
    private final int[] corruptMask;
    private int size;
    private long nextSeq;
    private long refused;

    /** A delay line of {@code bytes} bytes of storage in cells of {@code cellBytes}. */
    public ReleaseHeap(long bytes, int cellBytes) {
        if (cellBytes < 64 || bytes < cellBytes) {
            throw new IllegalArgumentException("delay line needs cellBytes >= 64 and bytes >= cellBytes, was "
                + bytes + " / " + cellBytes);
        }
        int cells = Math.toIntExact(bytes / cellBytes);
        this.cells = new CellStore(cells, cellBytes);
        this.time = new long[cells];
        this.seq = new long[cells];
        this.handle = new int[cells];
        this.length = new int[cells];
        this.corruptByte = new int[cells];
        this.corruptMask = new int[cells];
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

    /**
     * Holds a copy of a frame until {@code releaseNs}; {@code flipByte} (or -1) is XORed with
     * {@code flipMask} when the frame leaves. Returns false (and counts) if there is no room.
     */
    public boolean add(DirectBuffer src, int offset, int len, long releaseNs, int flipByte, int flipMask) {
        int head = cells.store(src, offset, len);
        if (head == NONE) {
            refused++;
            return false;
        }
        int i = size++;
        time[i] = releaseNs;
        seq[i] = nextSeq++;
        handle[i] = head;
        length[i] = len;
        corruptByte[i] = flipByte;
        corruptMask[i] = flipMask;
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
    }
}
