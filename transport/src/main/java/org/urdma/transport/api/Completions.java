package org.urdma.transport.api;

import java.time.Duration;
import java.util.concurrent.locks.LockSupport;
import org.urdma.verbs.CompletionQueue;
import org.urdma.verbs.WcStatus;
import org.urdma.verbs.WorkCompletion;

/** Blocking waits on a CQ for applications that want one completion at a time (control-path convenience: it allocates). */
public final class Completions {
    private Completions() {
    }

    /**
     * Polls {@code cq} until a completion arrives and returns it whatever its status, parking longer the longer it waits
     * (up to a millisecond): for a thread that may wait long for a peer, one of many such side by side.
     *
     * @param cq      the queue to poll
     * @param timeout how long to wait
     * @param what    what is awaited, for the message when nothing comes
     * @return the completion (a new object)
     * @throws IllegalStateException if none arrives within {@code timeout}
     */
    public static WorkCompletion next(CompletionQueue cq, Duration timeout, String what) {
        WorkCompletion[] wc = {new WorkCompletion()};
        long deadline = System.nanoTime() + timeout.toNanos();
        long park = 1_000;
        while (cq.poll(wc, 1) == 0) {
            if (System.nanoTime() - deadline > 0) throw new IllegalStateException(what + ": nothing within " + timeout.toSeconds() + " s");
            LockSupport.parkNanos(park);
            park = Math.min(1_000_000, park * 2);
        }
        return wc[0];
    }

    /**
     * Polls {@code cq} until a completion arrives (spinning briefly, then parking), and returns it.
     *
     * @param cq      the queue to poll
     * @param timeout how long to wait
     * @return the completion (a new object)
     * @throws IllegalStateException if none arrives within {@code timeout}, or it is not {@link WcStatus#SUCCESS}
     *                               (naming the work request, opcode and status)
     */
    public static WorkCompletion await(CompletionQueue cq, Duration timeout) {
        WorkCompletion[] wc = {new WorkCompletion()};
        long deadline = System.nanoTime() + timeout.toNanos();
        for (int spins = 0; cq.poll(wc, 1) == 0; spins++) {
            if (System.nanoTime() - deadline > 0) {
                throw new IllegalStateException("completion: none within " + timeout.toMillis() + " ms");
            }
            if (spins < 1000) Thread.onSpinWait();
            else LockSupport.parkNanos(50_000);
        }
        if (wc[0].status() != WcStatus.SUCCESS) {
            throw new IllegalStateException("completion: wr " + wc[0].wrId() + " " + wc[0].opcode() + " failed with " + wc[0].status());
        }
        return wc[0];
    }
}
