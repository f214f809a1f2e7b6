package org.urdma.transport.packet;

import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;

/**
 * How payload bytes move between registered memory and a frame: the engine's only two copies (the software DMA).
 * Real links copy the bytes ({@link #COPY}); a simulated world may instead put a description of the bytes in the
 * frame, so a path with a gigabyte in flight needs no gigabyte of frames. Either way the engine's placement, key and
 * bounds checks run as they are; only the copy itself differs.
 */
public interface Payloads {
    /**
     * Appends {@code length} bytes of {@code src} at {@code srcOffset} to the payload at {@code frame[payloadAt..]},
     * which already takes {@code taken} frame bytes; returns the frame bytes it added.
     */
    int put(MutableDirectBuffer frame, int payloadAt, int taken, DirectBuffer src, int srcOffset, int length);

    /** Places {@code length} payload bytes from payload byte {@code within} (payload at {@code frame[payloadAt..]}) into {@code dst}. */
    void get(DirectBuffer frame, int payloadAt, int within, MutableDirectBuffer dst, int dstOffset, int length);

    /** The payload length the packet carries, given the {@code frameBytes} its payload takes in the frame. */
    int length(DirectBuffer frame, int payloadAt, int frameBytes);

    /** The bytes themselves, as on every real link. */
    Payloads COPY = new Payloads() {
        @Override
        public int put(MutableDirectBuffer frame, int payloadAt, int taken, DirectBuffer src, int srcOffset, int length) {
            frame.putBytes(payloadAt + taken, src, srcOffset, length);
            return length;
        }

        @Override
        public void get(DirectBuffer frame, int payloadAt, int within, MutableDirectBuffer dst, int dstOffset, int length) {
            dst.putBytes(dstOffset, frame, payloadAt + within, length);
        }

        @Override
        public int length(DirectBuffer frame, int payloadAt, int frameBytes) {
            return frameBytes;
        }
    };
}
