package org.urdma.transport.engine;

import static org.junit.jupiter.api.Assertions.*;

import org.junit.jupiter.api.Test;
import org.urdma.verbs.QueuePair;

/** The pass serves the QPs made ready, once each, and forgets destroyed ones. */
class PassSchedulerTest {
    @Test
    void aPassServesEachReadyQpOnceAndCountsItsVisitsAndPasses() {
        try (Rig r = new Rig()) {
            QueuePair[] qp = r.rc();
            SoftQp a = idle(r, qp[0]);
            PassScheduler s = scheduler(r);
            assertFalse(s.hasReadyWork());
            s.activate(a);
            s.activate(a); // ready once
            s.doWork(r.sim.now(), java.util.List.of());
            assertEquals(1, s.qpVisits(), "served once");
            assertEquals(1, s.passes());
            s.doWork(r.sim.now(), java.util.List.of());
            assertEquals(1, s.qpVisits(), "an idle QP is not served again until something makes it ready");
            assertEquals(2, s.passes());
        }
    }

    @Test
    void aDestroyedQpIsNeverServed() {
        try (Rig r = new Rig()) {
            QueuePair[] qp = r.rc();
            SoftQp a = idle(r, qp[0]);
            PassScheduler s = scheduler(r);
            s.activate(a);
            qp[0].close();
            s.doWork(r.sim.now(), java.util.List.of());
            assertEquals(0, s.qpVisits());
            s.activate(a);
            assertFalse(s.hasReadyWork());
        }
    }

    /** {@code qp} once the device's own pass let it go (so another scheduler may queue it). */
    private static SoftQp idle(Rig r, QueuePair qp) {
        r.run(1_000_000);
        SoftQp a = (SoftQp) qp;
        assertFalse(a.ready, "idle");
        return a;
    }

    /** A scheduler of its own over device a's link, gate and timers. */
    private static PassScheduler scheduler(Rig r) {
        SoftDevice d = r.fabric.a;
        return new PassScheduler(d, r.fabric.linkA, new EngineGate(d, 16), new EngineTimers(d, r.sim.now()));
    }
}
