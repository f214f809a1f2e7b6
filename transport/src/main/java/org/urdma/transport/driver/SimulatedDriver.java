package org.urdma.transport.driver;

import java.util.function.BooleanSupplier;
import org.urdma.transport.engine.SoftDevice;

/**
 * Runs devices under a virtual clock: engine passes at the current instant until nothing more can happen,
 * then time jumps to the next event (a frame arrival or a timer). Deterministic given the seeds; no threads.
 */
public final class SimulatedDriver {
    /** Passes at one instant before time is nudged forward anyway (guards against a busy loop). */
    private static final int MAX_PASSES_PER_INSTANT = 100_000;
    private final SoftDevice[] devices;
    private long now;
    private long passes;
    /** Per device: no pass before this time (its thread descheduled), or Long.MIN_VALUE. */
    private final long[] pausedUntil;

    public SimulatedDriver(long startNanos, SoftDevice... devices) {
        this.devices = devices.clone();
        this.now = startNanos;
        this.pausedUntil = new long[devices.length];
        java.util.Arrays.fill(pausedUntil, Long.MIN_VALUE);
    }

    /**
     * Device {@code d} gets no pass until {@code untilNanos}, as an engine thread that the OS descheduled: frames queue
     * on its link and its timers and pacing deadlines pass unserved, then it runs again at that time.
     */
    public void pause(SoftDevice d, long untilNanos) {
        for (int i = 0; i < devices.length; i++) {
            if (devices[i] == d) {
                pausedUntil[i] = untilNanos;
                return;
            }
        }
        throw new IllegalArgumentException("not a device of this driver: " + d.name());
    }

    private boolean paused(int i) {
        return pausedUntil[i] > now;
    }

    public long now() {
        return now;
    }

    public long passes() {
        return passes;
    }

    /** One engine pass of every device at the current time; returns the work done. */
    public int step() {
        int work = 0;
        for (int i = 0; i < devices.length; i++) {
            if (!paused(i)) work += devices[i].doWork(now);
        }
        passes++;
        return work;
    }

    /** Runs until {@code done} holds or {@code maxNanos} of virtual time pass; returns whether it holds. */
    public boolean runUntil(BooleanSupplier done, long maxNanos) {
        long end = now + maxNanos;
        int atInstant = 0;
        while (true) {
            int work = step();
            if (done.getAsBoolean()) return true;
            if (work > 0 && ++atInstant < MAX_PASSES_PER_INSTANT) continue;
            atInstant = 0;
            long next = Long.MAX_VALUE;
            for (int i = 0; i < devices.length; i++) {
                // a paused device runs again when its pause ends, whatever waits for it
                next = Math.min(next, paused(i) ? pausedUntil[i] : devices[i].nextEventTime());
            }
            if (next == Long.MAX_VALUE) {
                boolean pending = false;
                for (SoftDevice d : devices) pending |= d.hasPendingWork();
                if (!pending) return done.getAsBoolean();
                next = now + 1_000;
            }
            if (next <= now) next = now + 1; // nudge
            if (next > end) {
                now = end;
                step();
                return done.getAsBoolean();
            }
            now = next;
        }
    }

    /** Runs for exactly {@code nanos} of virtual time. */
    public void runFor(long nanos) {
        runUntil(() -> false, nanos);
    }
}
