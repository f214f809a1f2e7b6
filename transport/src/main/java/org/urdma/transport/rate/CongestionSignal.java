package org.urdma.transport.rate;

/** What a rate control hears about congestion. */
public enum CongestionSignal {
    /** A CNP from the responder (RoCEv2 BTH 0x81, PAXI RH CNP): the path CE-marked this QP's packets. */
    CNP,
    /** A CE mark seen on a packet this QP received (for policies that react at the receiver). */
    CE
}
