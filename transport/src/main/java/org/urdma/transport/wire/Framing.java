package org.urdma.transport.wire;

import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;

/**
 * Encodes a transport packet into, and decodes it out of, one wire format. Instances keep reusable state
 * (the ICRC engine, counters) and are for one thread. Obtain them from {@link Framings}.
 */
public interface Framing {
    FramingKind kind();

    /**
     * Writes the whole Ethernet frame for {@code p} at {@code dst[offset..]}: link header (with an 802.1Q tag when
     * {@link Packet#vlan}), network header, BTH/RH, the extended headers the opcode and URDMA flags call for, the
     * payload (copied once from {@link Packet#payloadBuffer}), PadCnt zero bytes, ICRC and zero fill to 60 bytes.
     * Computes lengths, the IPv4 checksum, PadCnt (also stored back into {@code p.padCnt}) and the ICRC.
     *
     * @param dst    needs {@link #maxFrameLength(int)} bytes from {@code offset}.
     * @return the frame length in bytes.
     * @throws IllegalArgumentException if the opcode is not carried by this framing or a field is out of range
     *                                  (a programming error, not bad input).
     */
    int encode(Packet p, MutableDirectBuffer dst, int offset);

    /**
     * Bytes from the frame start to the BTH/RH for a frame addressed as {@code addr} (its VLAN tag and, for RoCEv2,
     * IPv4 or IPv6): where a sender writes the transport section in place before {@link #wrap}.
     */
    int transportOffset(Packet addr);

    /**
     * Completes a frame whose transport section (BTH/RH, extended headers, payload and pad, PadCnt set) was written
     * in place at {@code offset + transportOffset(addr)} up to {@code sectionEnd}: writes the link and network
     * headers from the addressing fields of {@code addr} (lengths and the IPv4 checksum computed), the ICRC and the
     * zero fill to 60 bytes. The transport fields of {@code addr} are not read. Returns the frame length.
     */
    int wrap(Packet addr, MutableDirectBuffer dst, int offset, int sectionEnd);

    /**
     * Decodes the frame {@code src[offset, offset + length)} into {@code out} (reset first). The payload is left
     * pointing into {@code src}. Never throws for any content or length; the result is also counted in
     * {@link #counters()}.
     *
     * <p>When {@code src} is a {@link MutableDirectBuffer} the ICRC check by default runs in place: it briefly
     * writes 1s over the variant header fields and the 8 bytes before the network header and puts the original
     * bytes back before returning, so the frame is unchanged afterwards but must not be read by another thread
     * meanwhile nor live in read-only memory (else use {@link Framings#of(FramingKind, boolean, boolean)}).
     */
    DecodeStatus decode(DirectBuffer src, int offset, int length, Packet out);

    /**
     * Bytes before the payload for {@code opcode} with/without VLAN tag and without URDMA headers (RoCEv2 and PAXI
     * Standard: over IPv4; add 20 for IPv6).
     */
    int headerLength(int opcode, boolean vlan);

    /** Bytes after the payload: pad (up to 3) plus ICRC, if any. */
    int trailerMaxLength();

    /** Largest frame for a payload of {@code payload} bytes (headers of the biggest opcode, VLAN, pad, ICRC). */
    int maxFrameLength(int payload);

    DecodeCounters counters();

    /**
     * ICRC offload, as a NIC hands the ICRC to hardware: frames are sent with a zero ICRC field and received without
     * checking it. Only for links that cannot corrupt a frame and where nobody captures (the in-memory link); a
     * framing that finds the end of short frames by their ICRC (PAXI AFH) ignores it. Off by default.
     */
    void icrcOffload(boolean on);

    /** Whether {@link #icrcOffload} is on (and applies to this framing). */
    boolean icrcOffloaded();
}
