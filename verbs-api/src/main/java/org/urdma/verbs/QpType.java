package org.urdma.verbs;

/** Queue pair transport service types. */
public enum QpType {
    /** Reliable connected: ACKs, retransmission, READ and atomics. */
    RC,
    /** Unreliable connected: SEND and WRITE only, no ACKs; a message with a lost packet is dropped whole. */
    UC,
    /** Unreliable datagram: SEND only, one packet per message, addressed per work request. */
    UD
}
