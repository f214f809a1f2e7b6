package org.urdma.transport.link;

import java.nio.ByteBuffer;
import java.util.concurrent.atomic.AtomicLong;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * A single-producer single-consumer ring of fixed-size frame slots with a delivery time each. The producer
 * claims a slot, writes the frame in place and publishes; the consumer reads it in place and releases.
 * Safe across two threads (release/acquire on the indices); no allocation after construction.
 */
final class FrameRing {
    final UnsafeBuffer buffer;
    private final int slotSize;
    private final int mask;
    private final int[] length;
    private final long[] deliverAt;
    /** The frame was sent with its ICRC offloaded (left out): the receiver must not check it. */
    private final boolean[] icrcOffloaded;
    /** Bytes before the frame in its slot (see {@link #claim(int)}). */
    private final int[] lead;
    /** The lead of the slot claimed last, stored with it on publish. Producer only. */
    private int claimedLead;
    private final AtomicLong tail = new AtomicLong(); // next slot the producer publishes
    private final AtomicLong head = new AtomicLong(); // next slot the consumer reads
    private long cachedHead;

    FrameRing(int slots, int slotSize) {
        if (Integer.bitCount(slots) != 1) throw new IllegalArgumentException("slots: must be a power of two, was " + slots);
        this.slotSize = slotSize;
        this.mask = slots - 1;
        this.buffer = new UnsafeBuffer(ByteBuffer.allocateDirect(slots * slotSize));
        this.length = new int[slots];
        this.deliverAt = new long[slots];
        this.icrcOffloaded = new boolean[slots];
        this.lead = new int[slots];
    }

    int slotSize() {
        return slotSize;
    }

    int capacity() {
        return mask + 1;
    }

    /** Offset of the next free slot, or -1 when the ring is full; the frame starts at the slot's start. Producer only. */
    int claim() {
        return claim(0);
    }

    /**
     * As {@link #claim()}, but the frame will start {@code frameLead} bytes into the slot (the caller writes it at the
     * returned offset plus the lead; the consumer finds it at {@link #offsetOf}).
     */
    int claim(int frameLead) {
        claimedLead = frameLead;
        long t = tail.get();
        if (t - cachedHead > mask) {
            cachedHead = head.get();
            if (t - cachedHead > mask) return -1;
        }
        return (int) (t & mask) * slotSize;
    }

    /** Publishes the claimed slot. Producer only. */
    void publish(int frameLength, long deliverTime, boolean offloaded) {
        long t = tail.get();
        int i = (int) (t & mask);
        length[i] = frameLength;
        deliverAt[i] = deliverTime;
        icrcOffloaded[i] = offloaded;
        lead[i] = claimedLead;
        tail.lazySet(t + 1);
    }

    /** Index of the oldest published frame, or -1. Consumer only. */
    int peek() {
        long h = head.get();
        return h == tail.get() ? -1 : (int) (h & mask);
    }

    /** Where the frame in slot {@code index} starts. */
    int offsetOf(int index) {
        return index * slotSize + lead[index];
    }

    int lengthOf(int index) {
        return length[index];
    }

    long deliverAtOf(int index) {
        return deliverAt[index];
    }

    boolean icrcOffloadedOf(int index) {
        return icrcOffloaded[index];
    }

    void release() {
        head.lazySet(head.get() + 1);
    }

    int size() {
        return (int) (tail.get() - head.get());
    }
}
