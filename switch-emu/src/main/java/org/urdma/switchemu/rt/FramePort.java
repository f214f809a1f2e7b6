package org.urdma.switchemu.rt;

import org.agrona.DirectBuffer;

/**
 * One switch port's frame I/O for the real-time driver: {@link AfPacketPort} (a veth in the switch's
 * namespace) or {@link InMemoryPort} (tests, no root). Non-blocking; called from the switch agent's
 * thread only.
 */
public interface FramePort extends AutoCloseable {
    @FunctionalInterface
    interface Receiver {
        /**
         * A received frame; the buffer is valid only during the call (and may be written to).
         * {@code arrivalEpochNs}: when the kernel took the frame in (ns since the epoch, CLOCK_REALTIME),
         * or 0 if the port does not know.
         */
        void onFrame(DirectBuffer buffer, int offset, int length, long arrivalEpochNs);

        /** A received frame whose arrival time the port does not know. */
        default void onFrame(DirectBuffer buffer, int offset, int length) {
            onFrame(buffer, offset, length, 0);
        }
    }

    /** Hands up to {@code limit} received frames to {@code receiver}; returns how many. */
    int receive(Receiver receiver, int limit);

    /** Copies a frame out for sending; false if the port cannot take it now (the driver counts a drop). */
    boolean send(DirectBuffer buffer, int offset, int length);

    /**
     * Zero-copy send, step 1: memory for a frame of {@code length} bytes at {@link #claimedOffset()}
     * (e.g. a TX ring slot), or null if the port cannot lend it (then {@link #send} is used).
     */
    default org.agrona.MutableDirectBuffer claim(int length) {
        return null;
    }

    default int claimedOffset() {
        return 0;
    }

    /** Zero-copy send, step 2: the claimed memory holds a {@code length}-byte frame. */
    default void commit(int length) {
        throw new IllegalStateException("commit without a claim");
    }

    /** Pushes queued frames out (e.g. one syscall per batch). */
    default void flush() {
    }

    /** A file descriptor that polls readable when frames wait (the driver sleeps on it), or -1. */
    default int readableFd() {
        return -1;
    }

    /** What the port itself counted (kernel drops, truncation...), for the counter report; "" if nothing. */
    default String describeCounters() {
        return "";
    }

    @Override
    default void close() {
    }
}
