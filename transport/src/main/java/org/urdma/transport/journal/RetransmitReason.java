package org.urdma.transport.journal;

/** Why PSNs were sent again. */
public enum RetransmitReason {
    /** A PSN sequence error NAK. */
    NAK,
    /** The ACK timer expired. */
    TIMEOUT,
    /** A selective ACK reported the PSNs missing. */
    SACK,
    /** A response past the oldest outstanding request (e.g. a READ response) implied the earlier ones were lost. */
    IMPLICIT_NAK,
    /** The RNR NAK timer expired. */
    RNR,
    /** A READ response came after a missing one. */
    READ_GAP
}
