package org.urdma.transport.engine;

import org.agrona.DeadlineTimerWheel;
import org.urdma.verbs.QpState;

/**
 * A QP's timers on its device's wheel: the ACK timeout (the completer's retry), the RNR wait (the requester's) and, in
 * WAN mode, the SACK timer (the responder's ACK with SACK-ETH at least every T µs while packets arrive).
 */
final class QpTimers {
    private final SoftQp qp;
    long retryTimerId = DeadlineTimerWheel.NULL_DEADLINE;
    long retryDeadline = Long.MAX_VALUE;
    long rnrTimerId = DeadlineTimerWheel.NULL_DEADLINE;
    long rnrDeadline = Long.MAX_VALUE;
    long sackTimerId = DeadlineTimerWheel.NULL_DEADLINE;
    long sackDeadline = Long.MAX_VALUE;

    QpTimers(SoftQp qp) {
        this.qp = qp;
    }

    /** The earliest timer (ACK timeout, RNR wait) of this QP; the wheel fires it on the tick after. */
    long nextDeadline() {
        return Math.min(Math.min(retryDeadline, rnrDeadline), sackDeadline);
    }

    void armSack(long deadline) {
        if (sackTimerId != DeadlineTimerWheel.NULL_DEADLINE) return;
        sackDeadline = deadline;
        sackTimerId = qp.device.scheduleTimer(qp, deadline);
    }

    void cancelSack() {
        qp.device.cancelTimer(sackTimerId);
        sackTimerId = DeadlineTimerWheel.NULL_DEADLINE;
        sackDeadline = Long.MAX_VALUE;
    }

    void armRetry(long deadline) {
        if (qp.ackTimeoutNanos == Long.MAX_VALUE) return;
        if (retryTimerId != DeadlineTimerWheel.NULL_DEADLINE) return; // lazily re-checked at expiry
        retryDeadline = deadline;
        retryTimerId = qp.device.scheduleTimer(qp, deadline);
    }

    void cancelRetry() {
        qp.device.cancelTimer(retryTimerId);
        retryTimerId = DeadlineTimerWheel.NULL_DEADLINE;
        retryDeadline = Long.MAX_VALUE;
    }

    void armRnr(long deadline) {
        qp.device.cancelTimer(rnrTimerId);
        rnrDeadline = deadline;
        rnrTimerId = qp.device.scheduleTimer(qp, deadline);
    }

    void cancelAll() {
        cancelRetry();
        qp.device.cancelTimer(rnrTimerId);
        rnrTimerId = DeadlineTimerWheel.NULL_DEADLINE;
        rnrDeadline = Long.MAX_VALUE;
        cancelSack();
    }

    void onTimer(long timerId, long now) {
        if (timerId == retryTimerId) {
            retryTimerId = DeadlineTimerWheel.NULL_DEADLINE;
            retryDeadline = Long.MAX_VALUE;
            QpState state = qp.state();
            if (state == QpState.RTS || state == QpState.SQD || state == QpState.SQE) qp.completer.onRetryTimer(now);
        } else if (timerId == rnrTimerId) {
            rnrTimerId = DeadlineTimerWheel.NULL_DEADLINE;
            rnrDeadline = Long.MAX_VALUE;
            qp.requester.onRnrTimer(now);
        } else if (timerId == sackTimerId) {
            sackTimerId = DeadlineTimerWheel.NULL_DEADLINE;
            sackDeadline = Long.MAX_VALUE;
            QpState state = qp.state();
            if (state != QpState.ERR && state != QpState.RESET) qp.responder.onSackTimer(now);
        }
    }
}
