package org.urdma.transport.packet;

/** Receives decoded packets from a {@link Link}; the packet view is valid only during the call. */
@FunctionalInterface
public interface PacketSink {
    void onPacket(RxPacket packet, long now);
}
