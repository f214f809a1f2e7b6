package org.urdma.switchemu.world;

import java.nio.ByteBuffer;
import java.util.Arrays;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * Off-heap slots for the frames in flight in a simulated world: a sender writes its frame into a slot, the
 * arrival event carries the slot's index, the receiver frees it. Grows by whole chunks when the world holds
 * more frames than ever before, so steady state allocates nothing.
 */
final class FramePool {
    static final int SLOT = 10_240;
    private static final int CHUNK_SHIFT = 10;
    private static final int CHUNK_SLOTS = 1 << CHUNK_SHIFT;

    private UnsafeBuffer[] chunks = new UnsafeBuffer[0];
    private int[] length = new int[0];
    private int[] free = new int[0];
    private int freeCount;
    private int inUse;
    private int highWater;

    int acquire() {
        if (freeCount == 0) grow();
        inUse++;
        highWater = Math.max(highWater, inUse);
        return free[--freeCount];
    }

    void release(int slot) {
        inUse--;
        free[freeCount++] = slot;
    }

    UnsafeBuffer buffer(int slot) {
        return chunks[slot >>> CHUNK_SHIFT];
    }

    int offset(int slot) {
        return (slot & (CHUNK_SLOTS - 1)) * SLOT;
    }

    int length(int slot) {
        return length[slot];
    }

    void length(int slot, int bytes) {
        length[slot] = bytes;
    }

    /** Frames in flight now. */
    int inUse() {
        return inUse;
    }

    /** Most frames ever in flight at once. */
    int highWater() {
        return highWater;
    }

    private void grow() {
        int n = chunks.length;
        chunks = Arrays.copyOf(chunks, n + 1);
        chunks[n] = new UnsafeBuffer(ByteBuffer.allocateDirect(CHUNK_SLOTS * SLOT));
        int total = (n + 1) * CHUNK_SLOTS;
        length = Arrays.copyOf(length, total);
        free = Arrays.copyOf(free, total);
        for (int i = total - 1; i >= n * CHUNK_SLOTS; i--) free[freeCount++] = i;
    }
}
