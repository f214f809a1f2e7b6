package org.urdma.transport.engine;

import org.urdma.transport.counters.Counter;
import org.urdma.transport.counters.QpStats;
import org.urdma.transport.wire.OpcodeTable;

/** {@link QpStats} of a {@link SoftQp}: its counters and policies, its responder's ACKs and its completer's retry episode. */
final class SoftQpStats implements QpStats {
    private final SoftQp qp;

    SoftQpStats(SoftQp qp) {
        this.qp = qp;
    }

    @Override
    public int qpn() {
        return qp.qpNum();
    }

    @Override
    public long get(Counter c) {
        return qp.counters.get(c);
    }

    @Override
    public int uethFlags() {
        return qp.uethFlags;
    }

    @Override
    public String policyNames() {
        String fec = (qp.uethFlags & OpcodeTable.UETH_FEC) == 0 ? ""
                : qp.fecData == 0 ? "+fec auto" : "+fec " + qp.fecData + "/" + qp.fecParity;
        return qp.recovery.name() + fec + ", " + qp.rate.name();
    }

    @Override
    public long acksSent() {
        return qp.responder.acksSent;
    }

    @Override
    public int retryNaksSinceProgress() {
        return qp.completer.episodeNaks();
    }

    @Override
    public int retryGapsSinceProgress() {
        return qp.completer.episodeGaps();
    }

    @Override
    public int retryTimeoutsSinceProgress() {
        return qp.completer.episodeTimeouts();
    }
}
