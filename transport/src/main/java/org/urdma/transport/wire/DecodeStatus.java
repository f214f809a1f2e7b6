package org.urdma.transport.wire;

/** Result of decoding one frame: OK or why it was dropped. Each value is counted in {@link DecodeCounters}. */
public enum DecodeStatus {
    OK,
    /** The frame ends before a header or the length its headers announce. */
    TRUNCATED,
    /** EtherType (or MAC control opcode) is not the one this framing expects. */
    WRONG_ETHERTYPE,
    /** IP version / IHL, GRH IPVer or next header, or BTH TVer is not the expected one. */
    BAD_VERSION,
    /** IPv4 protocol is not UDP, or the packet is an IP fragment. */
    BAD_IP_HEADER,
    BAD_IP_CHECKSUM,
    /** UDP destination port is not 4791. */
    WRONG_UDP_PORT,
    /** IP total / UDP / GRH payload lengths disagree with each other or the frame, or a header-only opcode has payload. */
    LENGTH_MISMATCH,
    /** Opcode is not defined or not carried by this framing. */
    UNKNOWN_OPCODE,
    /** PadCnt exceeds the payload, or the payload plus pad is not a multiple of 4. */
    BAD_PADCNT,
    BAD_ICRC,
    /** A URDMA extension header is malformed (e.g. SACK count above {@link SackEth#MAX_RANGES}). */
    BAD_EXTENSION,
    /** Not a frame of any known format (used by {@link AnyFrameDecoder}). */
    UNKNOWN_FORMAT;

    private static final DecodeStatus[] VALUES = values();

    public static DecodeStatus of(final int ordinal) {
        return VALUES[ordinal];
    }

    public static int count() {
        return VALUES.length;
    }
}
