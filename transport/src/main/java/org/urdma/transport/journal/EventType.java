package org.urdma.transport.journal;

/**
 * What a journal event says. Fields {@code a, b, c} of a record mean, per type: QP_STATE from, to (QpState
 * ordinals); RETRANSMIT first PSN, count, reason ({@link RetransmitReason} ordinal); NAK_* and RNR_NAK_* PSN,
 * AETH syndrome; CNP_* PSN; PAUSE_* priority (-1: 802.3x PAUSE, all), quanta; DROP reason (a {@code drop_}
 * {@link org.urdma.transport.counters.Counter} ordinal), PSN; LOST count; FEC_REPAIRED PSN rebuilt, PSN (data) or group base (parity) whose arrival let it. DEVICE names a device id.
 */
public enum EventType {
    DEVICE, QP_STATE, RETRANSMIT, NAK_SENT, NAK_RCVD, RNR_NAK_SENT, RNR_NAK_RCVD, CNP_SENT, CNP_RCVD, CNP_MERGED,
    PAUSE_ON, PAUSE_OFF, DROP, LOST, FEC_REPAIRED;

    private static final EventType[] VALUES = values();

    /** The ring's message type id (Agrona wants it positive). */
    int typeId() {
        return ordinal() + 1;
    }

    static EventType ofTypeId(int typeId) {
        return typeId >= 1 && typeId <= VALUES.length ? VALUES[typeId - 1] : null;
    }
}
