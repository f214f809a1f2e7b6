package org.urdma.transport.engine;

import static org.junit.jupiter.api.Assertions.*;

import org.junit.jupiter.api.Test;

/** A QP's three timers: armed once, the earliest reported, all cancelled together. */
class QpTimersTest {
    @Test
    void theEarliestOfTheThreeDeadlinesIsTheQpsNextAndCancellingClearsThemAll() {
        try (Rig r = new Rig()) {
            SoftQp a = (SoftQp) r.rc()[0];
            QpTimers t = a.timers;
            t.cancelAll();
            long now = r.sim.now();
            assertEquals(Long.MAX_VALUE, t.nextDeadline());
            t.armRetry(now + 500_000);
            t.armRetry(now + 100_000); // armed already: re-checked lazily at expiry, not moved
            assertEquals(now + 500_000, t.nextDeadline());
            t.armSack(now + 300_000);
            t.armRnr(now + 400_000);
            assertEquals(now + 300_000, t.nextDeadline(), "the SACK timer is first");
            t.armRnr(now + 200_000); // the RNR wait is re-armed
            assertEquals(now + 200_000, t.nextDeadline());
            t.cancelAll();
            assertEquals(Long.MAX_VALUE, t.nextDeadline());
            assertFalse(t.retry.armed());
            assertFalse(t.rnr.armed());
            assertFalse(t.sack.armed());
        }
    }

    @Test
    void anRnrTimerFiringEndsTheRequestersWait() {
        try (Rig r = new Rig()) {
            SoftQp a = (SoftQp) r.rc()[0];
            a.requester.rnrWait = true;
            a.timers.armRnr(r.sim.now() + 50_000);
            r.run(200_000);
            assertFalse(a.requester.rnrWait, "the wheel fired it and the requester may send again");
            assertEquals(Long.MAX_VALUE, a.timers.rnr.deadline);
            assertFalse(a.timers.rnr.armed());
        }
    }

    @Test
    void withoutAnAckTimeoutNoRetryTimerIsArmed() {
        try (Rig r = new Rig()) {
            SoftQp a = (SoftQp) r.pdA.createQp(org.urdma.transport.driver.MemoryFabric.init(org.urdma.verbs.QpType.RC, r.cqA, 16));
            assertEquals(Long.MAX_VALUE, a.ackTimeoutNanos, "a QP in RESET has none");
            a.timers.armRetry(r.sim.now() + 1000);
            assertFalse(a.timers.retry.armed());
        }
    }
}
