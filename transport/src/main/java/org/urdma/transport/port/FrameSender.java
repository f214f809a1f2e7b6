package org.urdma.transport.port;

import org.agrona.DirectBuffer;

/** Puts one ready-made frame on a port (a copy into the link's TX slot): for rare control frames such as ARP. */
@FunctionalInterface
public interface FrameSender {
    /** @return false when the link cannot take it now */
    boolean sendFrame(DirectBuffer frame, int offset, int length);
}
