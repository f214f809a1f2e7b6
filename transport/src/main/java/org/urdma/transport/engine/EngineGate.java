package org.urdma.transport.engine;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.locks.LockSupport;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import org.agrona.concurrent.ManyToOneConcurrentArrayQueue;

/**
 * The way into one device's engine from other threads, kept apart from the pass it feeds (as Aeron keeps its agents'
 * duty cycles apart from the conductor's commands): which thread holds the engine (a driver agent, or an application
 * thread in an inline pass), the control queue that runs verbs commands on that thread, and the queue of QPs whose
 * application posted work.
 */
final class EngineGate {
    private final SoftDevice device;
    private volatile Thread engineThread;
    private volatile Runnable inlinePass;
    /** The inline driver's clock: a post that claims the engine sends at once at this time (see {@link #onPosted}). */
    private volatile LongSupplier inlineClock;
    private final ManyToOneConcurrentArrayQueue<ControlTask<?>> controlQueue = new ManyToOneConcurrentArrayQueue<>(256);
    /** QPs whose application posted send work, from any thread; a QP is in it at most once (SoftQp.postSignal). */
    private final ManyToOneConcurrentArrayQueue<SoftQp> posted;
    /** A post found {@link #posted} full: the next pass looks at every QP once. */
    private volatile boolean sweep;
    private static final VarHandle ENGINE_THREAD;

    static {
        try {
            ENGINE_THREAD = MethodHandles.lookup().findVarHandle(EngineGate.class, "engineThread", Thread.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    EngineGate(SoftDevice device, int maxQp) {
        this.device = device;
        this.posted = new ManyToOneConcurrentArrayQueue<>(Math.max(16, Math.min(maxQp, 1 << 16)));
    }

    // ---------------------------------------------------------------- the engine's side (in a pass)

    /** Runs the queued control commands; returns how many. */
    int runControl() {
        int work = 0;
        ControlTask<?> t;
        while ((t = controlQueue.poll()) != null) {
            t.run();
            work++;
        }
        return work;
    }

    /** Application posts since the last pass make their QPs ready. */
    void takePosted(ReadyQueue ready, Iterable<SoftQp> all) {
        SoftQp qp;
        while ((qp = posted.poll()) != null) {
            qp.clearPostSignal(); // before the SQ is read: a post after this signals again
            if (!qp.destroyed) ready.add(qp);
        }
        if (sweep) {
            sweep = false;
            for (SoftQp q : all) {
                q.clearPostSignal();
                ready.add(q);
            }
        }
    }

    boolean hasPosted() {
        return !posted.isEmpty() || sweep;
    }

    // ---------------------------------------------------------------- posted work (any thread)

    /** A QP's SQ producer moved (any thread). */
    void onPosted(SoftQp qp) {
        if (inlinePass != null) {
            // inline driving with the engine free: the posting thread queues the QP itself, as a pass would (one CAS
            // instead of the post signal's two swaps and the queue's offer and poll)
            if (engineThread == Thread.currentThread()) {
                device.activate(qp);
                return;
            }
            if (tryEnter()) {
                try {
                    device.activate(qp);
                    LongSupplier clock = inlineClock;
                    if (clock != null) device.servePosted(clock.getAsLong());
                } finally {
                    exit();
                }
                return;
            }
        }
        if (qp.raisePostSignal() && !posted.offer(qp)) sweep = true;
    }

    // ---------------------------------------------------------------- the engine's claim

    boolean hasEngineThread() {
        return engineThread != null;
    }

    void bind(Thread t) {
        engineThread = t;
    }

    void inlinePass(Runnable pass, LongSupplier clock) {
        inlineClock = pass == null ? null : clock;
        inlinePass = pass;
    }

    boolean drivenInline() {
        return inlinePass != null;
    }

    boolean tryEnter() {
        return ENGINE_THREAD.compareAndSet(this, (Thread) null, Thread.currentThread());
    }

    void exit() {
        ENGINE_THREAD.setRelease(this, (Thread) null);
    }

    /** {@link SoftDevice#nextEventTime()} read under the engine's claim, or {@code ifBusy} when another thread holds it. */
    long nextEventTimeOr(long ifBusy) {
        if (engineThread == Thread.currentThread()) return device.nextEventTime();
        if (!tryEnter()) return ifBusy;
        try {
            return device.nextEventTime();
        } finally {
            exit();
        }
    }

    /** The application polls a CQ: with an inline driver the engine makes its pass first. */
    void invokeInline() {
        Runnable pass = inlinePass;
        if (pass != null) pass.run();
    }

    // ---------------------------------------------------------------- control commands

    /**
     * Runs a control operation on the engine thread and returns its result (inline when there is no driver). With
     * an inline driver the caller queues it and runs engine passes until one has run it (or another thread's has).
     */
    <T> T control(Supplier<T> op) {
        Thread e = engineThread;
        if (e == Thread.currentThread()) return op.get();
        Runnable pass = inlinePass;
        if (e == null && pass == null) return op.get();
        ControlTask<T> task = new ControlTask<>(op);
        while (!controlQueue.offer(task)) Thread.onSpinWait();
        while (!task.done) {
            pass = inlinePass;
            if (pass != null) {
                pass.run();
                if (!task.done) Thread.onSpinWait();
                continue;
            }
            LockSupport.parkNanos(10_000);
            if (engineThread == null && inlinePass == null) { // driver stopped meanwhile: run here
                if (controlQueue.remove(task)) task.run();
            }
        }
        if (task.error != null) {
            if (task.error instanceof RuntimeException re) throw re;
            throw new IllegalStateException(task.error);
        }
        return task.result;
    }

    private static final class ControlTask<T> {
        final Supplier<T> op;
        volatile boolean done;
        T result;
        Throwable error;

        ControlTask(Supplier<T> op) {
            this.op = op;
        }

        void run() {
            try {
                result = op.get();
            } catch (Throwable t) {
                error = t;
            }
            done = true;
        }
    }
}
