package org.urdma.transport.engine;

import static org.junit.jupiter.api.Assertions.*;

import org.junit.jupiter.api.Test;

/** The wheel fires a timer on the tick after its deadline, once, and not after it was cancelled. */
class EngineTimersTest {
    @Test
    void aTimerFiresOnceAfterItsDeadlineAndACancelledOneNever() {
        try (Rig r = new Rig()) {
            SoftQp a = (SoftQp) r.rc()[0];
            long t0 = r.sim.now();
            EngineTimers t = new EngineTimers(r.fabric.a, t0);
            t.schedule(a, t0 + 50_000);
            long cancelled = t.schedule(a, t0 + 60_000);
            t.cancel(cancelled);
            assertEquals(0, t.poll(t0 + 10_000), "not due");
            assertEquals(0, t.poll(t0 + 49_000), "not due");
            assertEquals(1, t.poll(t0 + 50_000 + 2 * EngineTimers.TICK_NANOS), "due: fired");
            assertEquals(0, t.poll(t0 + 100_000), "once, and the cancelled one never");
        }
    }

    @Test
    void aLongClockJumpStillFiresEveryDueTimer() {
        try (Rig r = new Rig()) {
            SoftQp a = (SoftQp) r.rc()[0];
            long t0 = r.sim.now();
            EngineTimers t = new EngineTimers(r.fabric.a, t0);
            for (int i = 1; i <= 5; i++) t.schedule(a, t0 + i * 300_000L);
            assertEquals(5, t.poll(t0 + 10_000_000_000L), "a 10 s jump: all five");
        }
    }

    @Test
    void theEarliestDeadlineIsTheQpsOwnAndAQpWithoutOneLeavesTheSet() {
        try (Rig r = new Rig()) {
            SoftQp a = (SoftQp) r.rc()[0];
            EngineTimers t = new EngineTimers(r.fabric.a, r.sim.now());
            t.schedule(a, r.sim.now() + 1000);
            assertEquals(a.timers.nextDeadline(), t.earliest(), "the timed set asks the QP");
            assertEquals(Long.MAX_VALUE, a.timers.nextDeadline(), "this QP has no timer of its own armed");
            assertEquals(Long.MAX_VALUE, t.earliest());
        }
    }
}
