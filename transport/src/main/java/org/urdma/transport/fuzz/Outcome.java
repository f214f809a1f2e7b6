package org.urdma.transport.fuzz;

import org.urdma.transport.counters.Counter;
import org.urdma.transport.wire.DecodeStatus;

/**
 * What became of one received frame: dropped by the framing (one value per {@link DecodeStatus} reason), dropped by the
 * device (bad P_Key, unknown QP, a QP that may not take it), or processed by a QP's responder or completer.
 */
public enum Outcome {
    TRUNCATED, WRONG_ETHERTYPE, BAD_VERSION, BAD_IP_HEADER, BAD_IP_CHECKSUM, WRONG_UDP_PORT, LENGTH_MISMATCH,
    UNKNOWN_OPCODE, BAD_PADCNT, BAD_ICRC, BAD_EXTENSION, UNKNOWN_FORMAT,
    /** {@link Counter#DROP_BAD_PKEY}. */
    BAD_PKEY,
    /** {@link Counter#DROP_UNKNOWN_QP}. */
    UNKNOWN_QP,
    /** {@link org.urdma.transport.counters.DeviceStats#qpDrops}: wrong transport for the QP, a QP not ready, a response for a PSN never sent, a foreign source. */
    RX_DROPPED,
    /** Handed to a QP's responder or completer, which acted on it per the spec (duplicates and sequence errors too). */
    PROCESSED;

    private static final Outcome[] VALUES = values();

    /** The outcome for a frame the framing rejected with {@code s} (never OK). */
    public static Outcome of(DecodeStatus s) {
        if (s == DecodeStatus.OK) throw new IllegalArgumentException("status: OK is not a drop");
        return valueOf(s.name());
    }

    public static Outcome of(int ordinal) {
        return VALUES[ordinal];
    }

    /** Whether the framing dropped the frame. */
    public boolean decodeDrop() {
        return ordinal() < BAD_PKEY.ordinal();
    }
}
