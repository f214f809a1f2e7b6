package org.urdma.transport.counters;

/**
 * A read-only view of one QP's engine counters (the numbers {@code urdma stat} shows for it), of the retry episode in
 * progress and of the policies it counts under, for tools and tests in the QP's process. Reads are safe from any thread; values are current as of the
 * engine's last store.
 */
public interface QpStats {
    /** {@return the QP's number} */
    int qpn();

    /**
     * {@return this QP's count of {@code c}, kept after the QP is destroyed (0 for a device-scope counter)}
     *
     * @param c a {@link Counter.Scope#QP} counter
     */
    long get(Counter c);

    /** {@return the UETH flags this QP's packets carry (WAN features agreed; 0 in DC mode)} */
    int uethFlags();

    /** {@return the names of this QP's loss recovery (with its P-FEC overlay when agreed) and rate control} */
    String policyNames();

    /** {@return the ACKs this QP's responder sent (coalesced ACKs once each; NAKs are {@link Counter#NAKS_SENT})} */
    long acksSent();

    /**
     * {@return the sequence-error NAKs that counted against retry_cnt since the requester last made progress}: after a
     * RETRY_EXC_ERR completion, how many of the spent retries the peer asked for (it was answering, and saw gaps)
     */
    int retryNaksSinceProgress();

    /** {@return the missing READ or atomic responses that counted against retry_cnt since the last progress} */
    int retryGapsSinceProgress();

    /** {@return the ACK timeouts that counted against retry_cnt since the last progress (the peer was silent)} */
    int retryTimeoutsSinceProgress();
}
