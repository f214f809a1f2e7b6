package org.urdma.transport.wire;

import org.agrona.DirectBuffer;

/**
 * Decodes a bare transport section (BTH, extended headers, payload, pad; no link or network header, no ICRC) in place:
 * how the engine reads a packet it rebuilt from P-FEC parity rather than received. Like a frame decode it never throws.
 */
public final class TransportSection {
    private TransportSection() {
    }

    /** Decodes {@code b[pos, end)} into {@code out} (its link and network fields are left as they are). */
    public static DecodeStatus decode(DirectBuffer b, int pos, int end, FramingKind kind, Packet out) {
        if (kind == null || !kind.usesBth()) return DecodeStatus.UNKNOWN_OPCODE;
        DecodeStatus s = TransportCodec.decodeHeaders(b, pos, end, kind, out);
        if (s != DecodeStatus.OK) return s;
        return TransportCodec.finishPayload(out, end, true);
    }
}
