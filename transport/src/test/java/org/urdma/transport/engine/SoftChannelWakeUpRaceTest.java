package org.urdma.transport.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * The engine signalling the channel while the application starts to wait on it, each signal released the moment the
 * waiter announces itself, so the two race on every round. A lost wake-up leaves the waiter parked with an event
 * queued until its timeout (far longer than any round takes, so a round that reaches it is a lost wake-up).
 */
class SoftChannelWakeUpRaceTest {
    private static final long RUN_NANOS = 3_000_000_000L;
    private static final long AWAIT_NANOS = 10_000_000_000L;

    @Test
    void noSignalRacingTheWaiterLeavesItAsleep() throws InterruptedException {
        SoftChannel channel = new SoftChannel();
        SoftCq cq = new SoftCq(SoftCqNotifyTest.idleDevice(), 4, channel);
        AtomicLong consumerAt = new AtomicLong(-1);
        AtomicLong consumed = new AtomicLong();
        AtomicReference<Throwable> failure = new AtomicReference<>();
        long end = System.nanoTime() + RUN_NANOS;
        Thread producer = new Thread(() -> {
            try {
                for (long k = 0; ; k++) {
                    if (!awaitAtLeast(consumerAt, k, end) || consumerAt.get() == Long.MAX_VALUE) return;
                    for (long d = (k * 7) & 31; d > 0; d--) Thread.onSpinWait(); // slides the signal across the wait's start
                    channel.signal(cq);
                    if (!awaitAtLeast(consumed, k + 1, end)) return;
                }
            } catch (Throwable t) {
                failure.set(t);
            }
        }, "channel-race-producer");
        producer.setDaemon(true);
        producer.start();
        long rounds = 0;
        long slow = 0;
        while (System.nanoTime() - end < 0) {
            consumerAt.set(rounds);
            long t0 = System.nanoTime();
            Object ev = channel.await(AWAIT_NANOS);
            if (System.nanoTime() - t0 >= AWAIT_NANOS) slow++;
            assertSame(cq, ev, "round " + rounds + " was signalled");
            consumed.set(++rounds);
        }
        consumerAt.set(Long.MAX_VALUE);
        producer.join(AWAIT_NANOS / 1_000_000);
        assertEquals(null, failure.get());
        assertTrue(rounds > 0);
        assertEquals(0, slow, "waits that slept through their signal in " + rounds + " rounds");
    }

    private static boolean awaitAtLeast(AtomicLong v, long k, long end) {
        for (int spins = 0; v.get() < k; spins++) {
            if ((spins & 255) == 255) {
                Thread.yield(); // one free core: let the other side run
                if (System.nanoTime() - end > AWAIT_NANOS) return false;
            } else {
                Thread.onSpinWait();
            }
        }
        return true;
    }
}
