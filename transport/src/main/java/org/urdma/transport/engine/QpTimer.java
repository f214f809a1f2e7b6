package org.urdma.transport.engine;

import org.agrona.DeadlineTimerWheel;

/** One of a QP's timers on its device's wheel: its wheel id while armed and the deadline it was armed for. */
final class QpTimer {
    private final SoftQp qp;
    long id = DeadlineTimerWheel.NULL_DEADLINE;
    long deadline = Long.MAX_VALUE;

    QpTimer(SoftQp qp) {
        this.qp = qp;
    }

    boolean armed() {
        return id != DeadlineTimerWheel.NULL_DEADLINE;
    }

    /** Arms the timer for {@code at}, replacing a deadline it may have. */
    void arm(long at) {
        qp.device.cancelTimer(id);
        schedule(at);
    }

    /** Arms the timer for {@code at} unless it is armed already (its deadline is then re-checked when it fires). */
    void armUnlessArmed(long at) {
        if (!armed()) schedule(at);
    }

    void cancel() {
        qp.device.cancelTimer(id);
        expired();
    }

    /** Whether the wheel's {@code timerId} is this timer; if so it is disarmed (it fired). */
    boolean fired(long timerId) {
        if (timerId != id) return false;
        expired();
        return true;
    }

    private void schedule(long at) {
        deadline = at;
        id = qp.device.scheduleTimer(qp, at);
    }

    private void expired() {
        id = DeadlineTimerWheel.NULL_DEADLINE;
        deadline = Long.MAX_VALUE;
    }
}
