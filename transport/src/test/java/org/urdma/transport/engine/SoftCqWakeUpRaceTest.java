package org.urdma.transport.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.urdma.verbs.WcOpcode;
import org.urdma.verbs.WcStatus;
import org.urdma.verbs.WorkCompletion;

/**
 * The engine pushing completions on one thread while the application arms, polls and would sleep on another, each
 * completion released the moment the consumer starts arming, so the two race on every pair. A pair is a lost wake-up
 * when the consumer's poll after its arm was empty and the push, once it returned, left no event on the channel:
 * judged from what each side saw, not from how long anything took.
 */
class SoftCqWakeUpRaceTest {
    private static final int PAIRS = 200_000;
    private static final long RUN_NANOS = 5_000_000_000L;
    private static final long STUCK_NANOS = 30_000_000_000L;

    @Test
    void noPushRacingAnArmAndPollLeavesTheConsumerAsleep() throws InterruptedException {
        SoftChannel channel = new SoftChannel();
        SoftCq cq = new SoftCq(SoftCqNotifyTest.idleDevice(), 16, channel);
        AtomicLong consumerAt = new AtomicLong(-1);
        AtomicLong pushed = new AtomicLong();
        AtomicLong last = new AtomicLong(PAIRS);
        AtomicReference<Throwable> failure = new AtomicReference<>();
        Thread producer = new Thread(() -> {
            try {
                for (long k = 0; k < last.get(); k++) {
                    awaitAtLeast(consumerAt, k);
                    if (k >= last.get()) break;
                    cq.push(k, WcStatus.SUCCESS, WcOpcode.RECV, 0, 0, 0, 0x11, 0, 0, false);
                    pushed.set(k + 1);
                }
            } catch (Throwable t) {
                failure.set(t);
            }
        }, "cq-race-producer");
        producer.setDaemon(true);
        producer.start();
        WorkCompletion[] wc = {new WorkCompletion()};
        long lost = 0;
        long pairs = 0;
        long start = System.nanoTime();
        for (long k = 0; k < PAIRS; k++) {
            if ((k & 1023) == 0 && System.nanoTime() - start > RUN_NANOS) {
                last.set(k);
                consumerAt.set(k); // lets the producer see the end
                break;
            }
            consumerAt.set(k);
            for (long d = (k * 7) & 31; d > 0; d--) Thread.onSpinWait(); // slides the arm across the push's window
            cq.requestNotify(false);
            int found = cq.poll(wc, 1);
            awaitAtLeast(pushed, k + 1); // the push returned: its signal, if it made one, is on the channel
            int events = drain(channel);
            if (found == 0) {
                if (events == 0) lost++;
                found = cq.poll(wc, 1);
            }
            assertEquals(1, found, "completion " + k + " was pushed");
            assertEquals(k, wc[0].wrId);
            pairs++;
        }
        producer.join(STUCK_NANOS / 1_000_000);
        assertEquals(null, failure.get());
        assertTrue(pairs > 0);
        assertEquals(0, lost, "lost wake-ups in " + pairs + " pairs");
    }

    private static int drain(SoftChannel channel) {
        int n = 0;
        while (channel.poll() != null) n++;
        return n;
    }

    private static void awaitAtLeast(AtomicLong v, long k) {
        long since = System.nanoTime();
        for (int spins = 0; v.get() < k; spins++) {
            if ((spins & 255) == 255) {
                Thread.yield(); // one free core: let the other side run
                if (System.nanoTime() - since > STUCK_NANOS) throw new AssertionError("the other side stopped at " + v.get());
            } else {
                Thread.onSpinWait();
            }
        }
    }
}
