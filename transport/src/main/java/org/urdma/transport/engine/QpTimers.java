package org.urdma.transport.engine;

import org.urdma.verbs.QpState;

/**
 * A QP's timers on its device's wheel: the ACK timeout (the completer's retry), the RNR wait (the requester's) and, in
 * WAN mode, the SACK timer (the responder's ACK with SACK-ETH at least every T µs while packets arrive) and the loss
 * check (the requester's pass when a PSN a SACK listed has waited out its reorder window).
 */
final class QpTimers {
    private final SoftQp qp;
    final QpTimer retry;
    final QpTimer rnr;
    final QpTimer sack;
    final QpTimer lossCheck;

    QpTimers(SoftQp qp) {
        this.qp = qp;
        this.retry = new QpTimer(qp);
        this.rnr = new QpTimer(qp);
        this.sack = new QpTimer(qp);
        this.lossCheck = new QpTimer(qp);
    }

    /** The earliest timer (ACK timeout, RNR wait, SACK, loss check) of this QP; the wheel fires it on the tick after. */
    long nextDeadline() {
        return Math.min(Math.min(retry.deadline, rnr.deadline), Math.min(sack.deadline, lossCheck.deadline));
    }

    /** A pass at {@code deadline} (its firing activates the QP), or earlier if one is armed for earlier. */
    void armLossCheck(long deadline) {
        if (!lossCheck.armed() || deadline < lossCheck.deadline) lossCheck.arm(deadline);
    }

    void armSack(long deadline) {
        sack.armUnlessArmed(deadline);
    }

    void cancelSack() {
        sack.cancel();
        lossCheck.cancel();
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
        lossCheck.cancel();
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
        } else {
            lossCheck.fired(timerId); // nothing else to do: the wheel activates the QP, whose pass judges
        }
    }
}
