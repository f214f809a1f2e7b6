package org.urdma.transport.engine;

import java.lang.invoke.VarHandle;
import java.util.concurrent.locks.LockSupport;
import org.agrona.concurrent.ManyToOneConcurrentArrayQueue;
import org.urdma.verbs.CompletionChannel;
import org.urdma.verbs.CompletionQueue;

/** A completion channel: the engine offers the armed CQ and unparks the waiter (no locks). */
public final class SoftChannel implements CompletionChannel {
    private final ManyToOneConcurrentArrayQueue<SoftCq> events = new ManyToOneConcurrentArrayQueue<>(1024);
    private volatile Thread waiter;

    /**
     * The queue's offer publishes the CQ with a release store, which a later load may pass: without the fence this
     * could read no waiter while the waiter, just announced, polled the queue empty, and it would sleep on the event.
     */
    void signal(SoftCq cq) {
        events.offer(cq);
        VarHandle.fullFence();
        Thread w = waiter;
        if (w != null) LockSupport.unpark(w);
    }

    @Override
    public CompletionQueue await(long timeoutNanos) throws InterruptedException {
        long deadline = System.nanoTime() + timeoutNanos;
        waiter = Thread.currentThread();
        try {
            while (true) {
                SoftCq cq = events.poll();
                if (cq != null) return cq;
                long left = deadline - System.nanoTime();
                if (left <= 0) return null;
                LockSupport.parkNanos(this, left);
                if (Thread.interrupted()) throw new InterruptedException("await: interrupted");
            }
        } finally {
            waiter = null;
        }
    }

    @Override
    public CompletionQueue poll() {
        return events.poll();
    }

    @Override
    public void close() {
        events.clear();
    }
}
