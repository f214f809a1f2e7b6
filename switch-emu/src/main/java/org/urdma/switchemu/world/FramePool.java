package org.urdma.switchemu.world;

import java.nio.ByteBuffer;
import java.util.Arrays;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * Off-heap slots for the frames in flight in a simulated world: a sender writes its frame into a slot, the
 * arrival event carries the slot's index, the receiver frees it. Two sizes: full slots for frames with payload bytes,
 * small ones for acknowledgements and described payloads, which at a long RTT are most of what is in flight. Each
 * slot also holds its frame's wire length (larger than what the slot holds when the payload is described). Grows by
 * whole chunks when the world holds more frames than ever before, so steady state allocates nothing.
 */
final class FramePool {
    static final int SLOT = 10_240;
    static final int SMALL_SLOT = 256;
    /** Marks a small slot's index. */
    private static final int SMALL = 1 << 30;
    private static final int CHUNK_SHIFT = 10;
    private static final int CHUNK_SLOTS = 1 << CHUNK_SHIFT;

    private final Slots large = new Slots(SLOT);
    private final Slots small = new Slots(SMALL_SLOT);
    private int inUse;
    private int highWater;

    /** A full slot. */
    int acquire() {
        return acquire(SLOT);
    }

    /** A slot that holds {@code bytes}. */
    int acquire(int bytes) {
        inUse++;
        highWater = Math.max(highWater, inUse);
        return bytes <= SMALL_SLOT ? small.acquire() | SMALL : large.acquire();
    }

    void release(int slot) {
        inUse--;
        slots(slot).release(slot & ~SMALL);
    }

    /**
     * A slot just big enough for the {@code bytes}-byte frame in {@code slot}: the frame moves to a small slot when it
     * fits one (an ACK, a described payload), so a long path's frames in flight hold what they say, not 10 KiB each.
     */
    int shrink(int slot, int bytes) {
        if (bytes > SMALL_SLOT || (slot & SMALL) != 0) return slot;
        int s = small.acquire() | SMALL;
        buffer(s).putBytes(offset(s), buffer(slot), offset(slot), bytes);
        large.release(slot);
        return s;
    }

    UnsafeBuffer buffer(int slot) {
        return slots(slot).chunks[(slot & ~SMALL) >>> CHUNK_SHIFT];
    }

    int offset(int slot) {
        Slots s = slots(slot);
        return ((slot & ~SMALL) & (CHUNK_SLOTS - 1)) * s.size;
    }

    /** Bytes of the frame in the slot. */
    int length(int slot) {
        return slots(slot).length[slot & ~SMALL];
    }

    /** Sets the frame's bytes; its wire length is the same unless {@link #wireLength(int, int)} says otherwise. */
    void length(int slot, int bytes) {
        Slots s = slots(slot);
        s.length[slot & ~SMALL] = bytes;
        s.wire[slot & ~SMALL] = bytes;
    }

    /** Bytes the frame takes on the wire (serialization, buffers, impairment): its length plus any described payload. */
    int wireLength(int slot) {
        return slots(slot).wire[slot & ~SMALL];
    }

    void wireLength(int slot, int bytes) {
        slots(slot).wire[slot & ~SMALL] = bytes;
    }

    /** Frames in flight now. */
    int inUse() {
        return inUse;
    }

    /** Most frames ever in flight at once. */
    int highWater() {
        return highWater;
    }

    /** Off-heap bytes the slots take. */
    long reservedBytes() {
        return (long) large.chunks.length * CHUNK_SLOTS * SLOT + (long) small.chunks.length * CHUNK_SLOTS * SMALL_SLOT;
    }

    private Slots slots(int slot) {
        return (slot & SMALL) != 0 ? small : large;
    }

    /** Slots of one size. */
    private static final class Slots {
        final int size;
        UnsafeBuffer[] chunks = new UnsafeBuffer[0];
        int[] length = new int[0];
        int[] wire = new int[0];
        private int[] free = new int[0];
        private int freeCount;

        Slots(int size) {
            this.size = size;
        }

        int acquire() {
            if (freeCount == 0) grow();
            return free[--freeCount];
        }

        void release(int slot) {
            free[freeCount++] = slot;
        }

        private void grow() {
            int n = chunks.length;
            chunks = Arrays.copyOf(chunks, n + 1);
            chunks[n] = new UnsafeBuffer(ByteBuffer.allocateDirect(CHUNK_SLOTS * size));
            int total = (n + 1) * CHUNK_SLOTS;
            length = Arrays.copyOf(length, total);
            wire = Arrays.copyOf(wire, total);
            free = Arrays.copyOf(free, total);
            for (int i = total - 1; i >= n * CHUNK_SLOTS; i--) free[freeCount++] = i;
        }
    }
}
