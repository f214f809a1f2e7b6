package org.urdma.transport.link;

import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;
import org.urdma.transport.engine.TransportPacket;

/** Turns a {@link TransportPacket} into a frame and back (implemented over the wire framings). */
public interface FrameCodec {
    /** Writes the frame at {@code offset}; returns its length, or a negative value when it cannot be encoded. */
    int encode(TransportPacket packet, MutableDirectBuffer frame, int offset);

    /** Reads a frame; false when it is malformed (bad length, checksum, opcode…), to be counted and dropped. */
    boolean decode(DirectBuffer frame, int offset, int length, TransportPacket out);

    /** Upper bound of the frame length for a payload of {@code payloadLength} bytes. */
    int maxFrameLength(int payloadLength);
}
