package org.urdma.bench.perf;

import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;
import org.urdma.transport.engine.TransportPacket;
import org.urdma.transport.link.FrameCodec;
import org.urdma.transport.pcap.PcapWriter;

/**
 * {@code --pcap}/{@code --pcapng} on the memory link: records each frame as the sending device's codec encodes it
 * (what a capture at the sender's port sees: frames the link's loss drops are in it). Both devices share the writer,
 * so records are written under its lock; capture is a debugging aid, not the measured path.
 */
final class CapturingCodec implements FrameCodec {
    private final FrameCodec codec;
    private final PcapWriter writer;
    private final long clockOffsetNanos;

    CapturingCodec(FrameCodec codec, PcapWriter writer, long clockOffsetNanos) {
        this.codec = codec;
        this.writer = writer;
        this.clockOffsetNanos = clockOffsetNanos;
    }

    @Override
    public int encode(TransportPacket packet, MutableDirectBuffer frame, int offset) {
        int len = codec.encode(packet, frame, offset);
        if (len > 0) {
            synchronized (writer) {
                writer.write(System.nanoTime() + clockOffsetNanos, frame, offset, len);
            }
        }
        return len;
    }

    @Override
    public boolean decode(DirectBuffer frame, int offset, int length, TransportPacket out) {
        return codec.decode(frame, offset, length, out);
    }

    @Override
    public int maxFrameLength(int payloadLength) {
        return codec.maxFrameLength(payloadLength);
    }
}
