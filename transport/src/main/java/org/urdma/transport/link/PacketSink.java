package org.urdma.transport.link;

import org.urdma.transport.engine.TransportPacket;

/** Receives decoded packets from a {@link Link}; the packet and its payload view are valid only during the call. */
@FunctionalInterface
public interface PacketSink {
    void onPacket(TransportPacket packet, long now);
}
