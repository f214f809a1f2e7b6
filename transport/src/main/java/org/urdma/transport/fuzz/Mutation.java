package org.urdma.transport.fuzz;

/**
 * What {@link FrameMutator} did to a frame. Structured mutations change decoded fields and re-encode the frame with
 * valid checksums and ICRC, so they reach the engine; raw ones change bytes after encoding and re-seal the frame or
 * deliberately leave it broken.
 */
public enum Mutation {
    // ---- structured: fields changed, lengths/checksums/ICRC recomputed ----
    /** Destination or source MAC. */
    ETH_ADDRESS,
    /** 802.1Q tag added, removed or changed. */
    VLAN,
    /** IPv4 TOS, TTL, id, flags/fragment offset. */
    IP_FIELDS,
    /** A source the QP is not connected to: IP/GID and MAC (rxe drops these for RC/UC). */
    WRONG_SOURCE,
    /** RoCEv2 over IPv6 instead of IPv4, or the other way round. */
    IP_VERSION,
    /** UDP source port. */
    UDP_SOURCE_PORT,
    /** GRH traffic class, flow label, hop limit, destination GID. */
    GRH_FIELDS,
    /** PAXI AFH TC, SRC_XPU, OpFlags, DST_QPID. */
    AFH_FIELDS,
    OPCODE,
    DEST_QP,
    PKEY,
    /** SE, MigReq, TVer, FECN/BECN, resv6/resv7, AckReq, PAXI VC. */
    BTH_FLAGS,
    /** PSN at the expected PSN ± a few. */
    PSN_NEAR,
    /** PSN 2^23 ± a few away: the edge between "old" and "new" modulo 2^24. */
    PSN_FAR,
    /** PSN anywhere in the 32 Ki-PSN placement window ahead (a WAN QP places out of order there). */
    PSN_WINDOW,
    /** RETH VA around region edges, R_Key (granted, ungranted, random), DMA length. */
    RETH,
    /** ACK/NAK/RNR NAK syndromes (every NAK code, RNR timers), MSN, with stale or future PSNs. */
    AETH,
    /** AtomicETH VA/R_Key/operands, AtomicAckETH original data. */
    ATOMIC,
    /** Immediate data, IETH R_Key to invalidate. */
    IMM_IETH,
    /** DETH Q_Key and source QP. */
    DETH,
    /** Payload shorter or longer (around the path MTU), PadCnt follows. */
    PAYLOAD_LENGTH,
    /** URDMA extension bit and UETH flags. */
    URDMA_EXTENSION,
    /** WAN headers: SACK-ETH cumulative PSN and ranges (stale, future, overlapping), FEC-ETH base/m/r/index/length, TS and AETH-EXT. */
    WAN_HEADERS,
    // ---- raw: bytes changed after encoding ----
    /** Random bits flipped, IPv4 checksum and ICRC recomputed so the frame still passes them. */
    BIT_FLIP_SEALED,
    /** Random bits flipped and left (ICRC, maybe IPv4 checksum, no longer match). */
    BIT_FLIP,
    /** Only the ICRC damaged. */
    BAD_ICRC,
    /** Frame cut short. */
    TRUNCATE,
    /** Bytes appended. */
    EXTEND,
    /** IPv4 total length, UDP length or GRH payload length changed (IPv4 checksum fixed, ICRC re-sealed or not). */
    LENGTH_FIELD,
    /** EtherType changed. */
    ETHERTYPE,
    /** UDP destination port changed. */
    UDP_DEST_PORT,
    /** A byte of the BTH/RH or the header after it set at random (opcode, PadCnt, TVer, SACK count…), re-sealed. */
    TRANSPORT_BYTE_SEALED;

    private static final Mutation[] VALUES = values();

    static Mutation of(int ordinal) {
        return VALUES[ordinal];
    }
}
