package org.urdma.switchemu.rt;

import org.agrona.DirectBuffer;

/**
 * One switch port's frame I/O for the real-time driver: an AF_PACKET socket on a veth (once the native
 * module provides it), or {@link InMemoryPort}. Non-blocking; called from the switch agent's thread only.
 */
public interface FramePort {
    @FunctionalInterface
    interface Receiver {
        /** A received frame; the buffer is valid only during the call. */
        void onFrame(DirectBuffer buffer, int offset, int length);
    }

    /** Hands up to {@code limit} received frames to {@code receiver}; returns how many. */
    int receive(Receiver receiver, int limit);

    /** Queues a frame for sending; false if the port cannot take it now (the driver counts a drop). */
    boolean send(DirectBuffer buffer, int offset, int length);

    /** Pushes queued frames out (e.g. one syscall per batch). */
    default void flush() {
    }
}
