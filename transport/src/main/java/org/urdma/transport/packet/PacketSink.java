package org.urdma.transport.packet;

import org.urdma.transport.wire.DecodeStatus;

/** Receives decoded packets from a {@link Link}; the packet view is valid only during the call. */
@FunctionalInterface
public interface PacketSink {
    void onPacket(RxPacket packet, long now);

    /** A frame of this link's format that could not be decoded was dropped (the link counts it too). */
    default void onMalformed(DecodeStatus why, long now) {
    }

    /**
     * Asked after each packet: false ends the link's receive call after it (the frames behind it wait for the next
     * call). A link that hands frames over in whole blocks (TPACKET_V3) may deliver the rest of the block first.
     */
    default boolean takesMore() {
        return true;
    }
}
