package org.urdma.transport.link;

import java.nio.ByteBuffer;
import java.util.Arrays;
import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * Frames an impairment holds until their release time (netem's tfifo, like the real-time switch's release heap):
 * fixed-size off-heap slots and a binary min-heap ordered by (release time, offer order), so frames leave in time
 * order and ties in the order they were offered. Storage doubles when full, up to {@code maxFrames} (then a frame is
 * refused and counted); in steady state nothing is allocated.
 */
final class DelayLine {
    private final int slotSize;
    private final int maxFrames;
    private UnsafeBuffer slots;
    /** Free slot indices (a stack). */
    private int[] free;
    private int freeCount;

    // heap entries, by heap position
    private long[] time;
    private long[] seq;
    private int[] slot;
    private int[] length;
    private int[] corruptByte;
    private int[] corruptMask;
    private boolean[] offloaded;
    private int size;
    private long nextSeq;
    private long refused;

    DelayLine(int slotSize, int initialFrames, int maxFrames) {
        this.slotSize = slotSize;
        this.maxFrames = maxFrames;
        allocate(Math.min(initialFrames, maxFrames));
    }

    private void allocate(int frames) {
        UnsafeBuffer bytes = new UnsafeBuffer(ByteBuffer.allocateDirect(frames * slotSize));
        int old = time == null ? 0 : time.length;
        if (old > 0) bytes.putBytes(0, slots, 0, old * slotSize);
        slots = bytes;
        time = grow(time, frames);
        seq = grow(seq, frames);
        slot = grow(slot, frames);
        length = grow(length, frames);
        corruptByte = grow(corruptByte, frames);
        corruptMask = grow(corruptMask, frames);
        offloaded = offloaded == null ? new boolean[frames] : Arrays.copyOf(offloaded, frames);
        int[] f = new int[frames];
        if (free != null) System.arraycopy(free, 0, f, 0, freeCount);
        for (int i = frames - 1; i >= old; i--) f[freeCount++] = i;
        free = f;
    }

    private static long[] grow(long[] a, int n) {
        return a == null ? new long[n] : Arrays.copyOf(a, n);
    }

    private static int[] grow(int[] a, int n) {
        return a == null ? new int[n] : Arrays.copyOf(a, n);
    }

    int size() {
        return size;
    }

    /** Frames refused because the line was at its largest and full. */
    long refused() {
        return refused;
    }

    /** Release time of the earliest frame, or {@link Long#MAX_VALUE} when empty. */
    long nextRelease() {
        return size == 0 ? Long.MAX_VALUE : time[0];
    }

    int peekLength() {
        return length[0];
    }

    boolean peekOffloaded() {
        return offloaded[0];
    }

    /**
     * Holds a copy of a frame until {@code releaseAt}; byte {@code flipByte} (or -1) is XORed with {@code flipMask}
     * when it leaves. False (and counted) when there is no room.
     */
    boolean add(DirectBuffer src, int offset, int len, long releaseAt, int flipByte, int flipMask, boolean icrcOffloaded) {
        if (freeCount == 0) {
            if (time.length >= maxFrames) {
                refused++;
                return false;
            }
            allocate(Math.min(maxFrames, time.length * 2));
        }
        int s = free[--freeCount];
        slots.putBytes(s * slotSize, src, offset, len);
        int i = size++;
        time[i] = releaseAt;
        seq[i] = nextSeq++;
        slot[i] = s;
        length[i] = len;
        corruptByte[i] = flipByte;
        corruptMask[i] = flipMask;
        offloaded[i] = icrcOffloaded;
        siftUp(i);
        return true;
    }

    /** Copies the earliest frame to {@code dst} (its corruption applied), frees it and returns its length. */
    int pollInto(MutableDirectBuffer dst, int dstOffset) {
        int len = length[0];
        int s = slot[0];
        dst.putBytes(dstOffset, slots, s * slotSize, len);
        int flip = corruptByte[0];
        if (flip >= 0 && flip < len) {
            dst.putByte(dstOffset + flip, (byte) (dst.getByte(dstOffset + flip) ^ corruptMask[0]));
        }
        free[freeCount++] = s;
        if (--size > 0) {
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
            if (!before(i, parent)) return;
            swap(i, parent);
            i = parent;
        }
    }

    private void siftDown(int i) {
        while (true) {
            int left = 2 * i + 1;
            if (left >= size) return;
            int child = left + 1 < size && before(left + 1, left) ? left + 1 : left;
            if (!before(child, i)) return;
            swap(i, child);
            i = child;
        }
    }

    private void move(int from, int to) {
        time[to] = time[from];
        seq[to] = seq[from];
        slot[to] = slot[from];
        length[to] = length[from];
        corruptByte[to] = corruptByte[from];
        corruptMask[to] = corruptMask[from];
        offloaded[to] = offloaded[from];
    }

    private void swap(int a, int b) {
        long t = time[a];
        time[a] = time[b];
        time[b] = t;
        long q = seq[a];
        seq[a] = seq[b];
        seq[b] = q;
        int x = slot[a];
        slot[a] = slot[b];
        slot[b] = x;
        x = length[a];
        length[a] = length[b];
        length[b] = x;
        x = corruptByte[a];
        corruptByte[a] = corruptByte[b];
        corruptByte[b] = x;
        x = corruptMask[a];
        corruptMask[a] = corruptMask[b];
        corruptMask[b] = x;
        boolean o = offloaded[a];
        offloaded[a] = offloaded[b];
        offloaded[b] = o;
    }
}
