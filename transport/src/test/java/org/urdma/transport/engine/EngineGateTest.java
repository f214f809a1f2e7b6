package org.urdma.transport.engine;

import static org.junit.jupiter.api.Assertions.*;

import org.junit.jupiter.api.Test;
import org.urdma.verbs.QueuePair;

/** The engine's claim and the posted-work queue, on one thread. */
class EngineGateTest {
    @Test
    void theEngineIsClaimedByOneThreadAtATime() {
        try (Rig r = new Rig()) {
            EngineGate g = new EngineGate(r.fabric.a, 16);
            assertTrue(g.tryEnter());
            assertFalse(g.tryEnter(), "held already");
            g.exit();
            assertTrue(g.tryEnter(), "free again");
            g.exit();
            g.bind(new Thread(() -> { })); // another thread holds it (never started: only its identity counts)
            assertTrue(g.hasEngineThread());
            assertFalse(g.tryEnter());
            assertEquals(-5, g.nextEventTimeOr(-5), "busy: the caller's answer");
            g.bind(null);
            assertEquals(r.fabric.a.nextEventTime(), g.nextEventTimeOr(-5), "free: read under the claim");
            assertTrue(g.tryEnter(), "and released after the read");
            g.exit();
        }
    }

    @Test
    void withNoDriverAControlCommandRunsOnTheCaller() {
        try (Rig r = new Rig()) {
            EngineGate g = new EngineGate(r.fabric.a, 16);
            Thread caller = Thread.currentThread();
            assertSame(caller, g.control(Thread::currentThread));
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> g.control(() -> {
                throw new IllegalArgumentException("x: refused");
            }));
            assertEquals("x: refused", e.getMessage());
            assertEquals(0, g.runControl(), "nothing was queued");
        }
    }

    @Test
    void aPostQueuesItsQpOnceAndThePassMakesItReady() {
        try (Rig r = new Rig()) {
            QueuePair[] qp = r.rc();
            SoftQp a = (SoftQp) qp[0];
            r.run(1_000_000);
            assertFalse(a.ready, "idle: the device's own pass let it go");
            EngineGate g = new EngineGate(r.fabric.a, 16);
            assertFalse(g.hasPosted());
            g.onPosted(a);
            g.onPosted(a); // its post signal is up: not queued twice
            assertTrue(g.hasPosted());
            ReadyQueue ready = new ReadyQueue();
            g.takePosted(ready, java.util.List.of());
            assertFalse(g.hasPosted());
            assertEquals(1, ready.size());
            assertSame(a, ready.poll());
            g.onPosted(a);
            assertTrue(g.hasPosted(), "the pass cleared its signal: a new post queues it again");
        }
    }
}
