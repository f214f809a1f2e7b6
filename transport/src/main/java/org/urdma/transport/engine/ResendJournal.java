package org.urdma.transport.engine;

import org.urdma.transport.counters.Counter;
import org.urdma.transport.journal.RetransmitReason;
import org.urdma.transport.recovery.LossCause;
import org.urdma.transport.wire.Psn;

/**
 * A requester's packets sent again: counted, and journalled in runs. A run of one-PSN packets becomes one RETRANSMIT
 * event (first PSN, packets); a READ request (one packet for several PSNs) ends its run, so every event's PSNs are
 * exactly the packets resent and the events' counts add up to retransmitted_pkts. A run has one reason.
 */
final class ResendJournal {
    private final SoftQp qp;
    /** Why the packets sent again since the last rewind are sent again. */
    private RetransmitReason reason = RetransmitReason.TIMEOUT;
    /** Retransmitted packets of this pass not yet journalled: consecutive PSNs from runFirst, one packet each. */
    private int runFirst, runCount;

    ResendJournal(SoftQp qp) {
        this.qp = qp;
    }

    void reset() {
        runCount = 0;
    }

    RetransmitReason reason() {
        return reason;
    }

    /** The packet at {@code psn}, covering {@code psns} PSNs, was sent again. */
    void resent(int psn, int psns) {
        qp.counters.increment(Counter.RETRANSMITTED_PKTS);
        if (reason == RetransmitReason.SACK) qp.counters.increment(Counter.SACK_RESENT_PKTS);
        if (runCount > 0 && psn != Psn.add(runFirst, runCount)) flush(qp.device.now());
        if (runCount == 0) runFirst = psn;
        runCount++;
        if (psns != 1) flush(qp.device.now());
    }

    /** Journals the run so far. */
    void flush(long now) {
        if (runCount > 0) {
            qp.journal.retransmit(now, qp.qpNum(), runFirst, runCount, reason);
            runCount = 0;
        }
    }

    /** The next packets sent again are resent for {@code cause}. */
    void reason(LossCause cause) {
        if (runCount > 0 && reasonOf(cause) != reason) flush(qp.device.now()); // a run has one reason
        reason = reasonOf(cause);
    }

    /** An RNR NAK: the next packets sent again wait out the RNR timer first. */
    void afterRnr() {
        reason = RetransmitReason.RNR;
    }

    private static RetransmitReason reasonOf(LossCause cause) {
        return switch (cause) {
            case NAK -> RetransmitReason.NAK;
            case IMPLICIT_NAK -> RetransmitReason.IMPLICIT_NAK;
            case READ_GAP -> RetransmitReason.READ_GAP;
            case TIMEOUT -> RetransmitReason.TIMEOUT;
            case SACK -> RetransmitReason.SACK;
        };
    }
}
