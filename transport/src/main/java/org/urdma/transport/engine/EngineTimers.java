package org.urdma.transport.engine;

import java.util.concurrent.TimeUnit;
import org.agrona.DeadlineTimerWheel;
import org.agrona.collections.Long2ObjectHashMap;

/**
 * One device's timer wheel: every timer on it is a QP's ACK-timeout, RNR or SACK timer, and each QP knows its own
 * deadlines, so the wheel is polled only when one may be due.
 */
final class EngineTimers {
    /** Timer wheel tick: 1.024 µs, finer than the 4.096 µs ACK timeout unit. */
    static final long TICK_NANOS = 1024;
    static final int WHEEL_TICKS = 1024;
    private final SoftDevice device;
    private final DeadlineTimerWheel timers;
    /** No timer is due before this time (the earliest deadline scheduled since the wheel was last polled). */
    private long timerCheck = Long.MAX_VALUE;
    private final Long2ObjectHashMap<SoftQp> timerOwners = new Long2ObjectHashMap<>();
    private final DeadlineTimerWheel.TimerHandler onTimer = this::onTimerExpiry;
    /** QPs that may have a timer armed (pruned lazily). */
    private final QpSet timed = new QpSet(QpSet.TIMED);

    EngineTimers(SoftDevice device, long startNanos) {
        this.device = device;
        this.timers = new DeadlineTimerWheel(TimeUnit.NANOSECONDS, startNanos, TICK_NANOS, WHEEL_TICKS);
    }

    /** Earliest ACK-timeout or RNR deadline; QPs without one leave the timed set. */
    long earliest() {
        long next = Long.MAX_VALUE;
        for (int i = timed.size() - 1; i >= 0; i--) {
            SoftQp qp = timed.get(i);
            long d = qp.timers.nextDeadline();
            if (d == Long.MAX_VALUE) timed.remove(qp);
            else if (d < next) next = d;
        }
        return next;
    }

    int poll(long now) {
        int n = 0;
        if (timers.timerCount() == 0 || now < timerCheck) {
            // nothing is due before timerCheck: move the wheel to now without visiting the spokes it passes (their
            // timers are not due; the wheel comes round to them again)
            if (timers.currentTickTime() <= now) timers.currentTickTime(now);
            return 0;
        }
        // Catch up tick by tick, but at most one rotation: that visits every spoke, so every due timer fires;
        // after a long gap (a virtual-clock jump, a GC pause) the wheel then jumps straight to now.
        int spokes = 0;
        do {
            n += timers.poll(now, onTimer, 64);
        } while (timers.currentTickTime() <= now && ++spokes <= WHEEL_TICKS);
        if (timers.currentTickTime() <= now) timers.currentTickTime(now);
        // every wheel timer is a QP's retry or RNR timer, and each QP knows its own deadlines
        timerCheck = earliest();
        return n;
    }

    private boolean onTimerExpiry(TimeUnit unit, long now, long timerId) {
        SoftQp qp = timerOwners.remove(timerId);
        if (qp != null) {
            qp.timers.onTimer(timerId, now);
            device.activate(qp);
        }
        return true;
    }

    long schedule(SoftQp owner, long deadline) {
        long id = timers.scheduleTimer(deadline);
        if (deadline < timerCheck) timerCheck = deadline;
        timerOwners.put(id, owner);
        timed.add(owner);
        return id;
    }

    void cancel(long id) {
        if (id != DeadlineTimerWheel.NULL_DEADLINE && timerOwners.remove(id) != null) timers.cancelTimer(id);
    }

    /** A destroyed QP. */
    void remove(SoftQp qp) {
        timed.remove(qp);
    }
}
