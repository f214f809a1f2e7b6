package org.urdma.tools.perf;

import org.urdma.transport.api.Stats;
import org.urdma.transport.counters.QpStats;
import org.urdma.verbs.QueuePair;

/**
 * Why an RC requester ended in RETRY_EXC_ERR, from the losses of its last retry episode: a peer that kept answering
 * with sequence-error NAKs (it saw gaps: frames lost or reordered, or its receive path fell behind) spends the retries
 * as surely as a silent one, and the two need different fixes.
 */
final class RetryExhaustion {
    private RetryExhaustion() {
    }

    /** The clause for the error message of {@code qp}'s RETRY_EXC_ERR completion. */
    static String of(QueuePair qp) {
        QpStats q = Stats.of(qp);
        return of(q.retryNaksSinceProgress(), q.retryGapsSinceProgress(), q.retryTimeoutsSinceProgress());
    }

    static String of(int sequenceNaks, int responseGaps, int ackTimeouts) {
        String count = sequenceNaks + " sequence-error " + plural(sequenceNaks, "NAK")
                + (responseGaps > 0 ? ", " + responseGaps + " missing READ/atomic " + plural(responseGaps, "response") : "")
                + " and " + ackTimeouts + " ACK " + plural(ackTimeouts, "timeout") + " since the last progress, retries spent (--retry)";
        if (sequenceNaks > 0) {
            return ": the peer kept NAKing, " + count + "; it was answering but saw gaps (frames lost or reordered, "
                    + "or its receive path fell behind)";
        }
        if (responseGaps > 0) return ": responses kept going missing, " + count;
        if (ackTimeouts > 0) return ": the peer stopped acknowledging (dead or unreachable), " + count;
        return ": retries spent (--retry)";
    }

    private static String plural(int n, String word) {
        return n == 1 ? word : word + "s";
    }
}
