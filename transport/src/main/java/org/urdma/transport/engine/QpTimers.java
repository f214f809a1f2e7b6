package org.urdma.transport.engine;

import org.urdma.verbs.QpState;

/**
 * A QP's timers on its device's wheel: the ACK timeout (the completer's retry), the RNR wait (the requester's) and, in
 * WAN mode, the SACK timer (the responder's ACK with SACK-ETH at least every T µs while packets arrive).
 */
final class QpTimers {
    private final SoftQp qp;
    final QpTimer retry;
    final QpTimer rnr;
    final QpTimer sack;

    QpTimers(SoftQp qp) {
        this.qp = qp;
        this.retry = new QpTimer(qp);
        this.rnr = new QpTimer(qp);
        this.sack = new QpTimer(qp);
    }

    /** The earliest timer (ACK timeout, RNR wait, SACK) of this QP; the wheel fires it on the tick after. */
    long nextDeadline() {
        return Math.min(Math.min(retry.deadline, rnr.deadline), sack.deadline);
    }

    void armSack(long deadline) {
        sack.armUnlessArmed(deadline);
    }

    void cancelSack() {
        sack.cancel();
    }

    void armRetry(long deadline) {
        if (qp.ackTimeoutNanos == Long.MAX_VALUE) return;
        retry.armUnlessArmed(deadline); // an armed timer's deadline is re-checked lazily at expiry
    }

    void cancelRetry() {
        retry.cancel();
    }

    void armRnr(long deadline) {
        rnr.arm(deadline);
    }

    void cancelAll() {
        retry.cancel();
        rnr.cancel();
        sack.cancel();
    }

    void onTimer(long timerId, long now) {
        if (retry.fired(timerId)) {
            QpState state = qp.state();
            if (state == QpState.RTS || state == QpState.SQD || state == QpState.SQE) qp.completer.onRetryTimer(now);
        } else if (rnr.fired(timerId)) {
            qp.requester.onRnrTimer(now);
        } else if (sack.fired(timerId)) {
            QpState state = qp.state();
            if (state != QpState.ERR && state != QpState.RESET) qp.responder.onSackTimer(now);
        }
    }
}
