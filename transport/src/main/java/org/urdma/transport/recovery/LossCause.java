package org.urdma.transport.recovery;

/** Why the requester learnt of a loss (journalled with each retransmission). */
public enum LossCause {
    /** NAK with syndrome PSN sequence error. */
    NAK,
    /** An ACK past a READ or atomic whose response never came (rxe's implicit NAK). */
    IMPLICIT_NAK,
    /** A READ response after a missing one. */
    READ_GAP,
    /** The local ACK timer fired. */
    TIMEOUT,
    /** The receiver's selective acknowledgement listed the PSN as missing. */
    SACK
}
