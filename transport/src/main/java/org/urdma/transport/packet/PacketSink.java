package org.urdma.transport.packet;

import org.urdma.transport.wire.DecodeStatus;

/** Receives decoded packets from a {@link Link}; the packet view is valid only during the call. */
@FunctionalInterface
public interface PacketSink {
    void onPacket(RxPacket packet, long now);

    /** A frame of this link's format that could not be decoded was dropped (the link counts it too). */
    default void onMalformed(DecodeStatus why, long now) {
    }
}
