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

    public SimulatedDriver(long startNanos, SoftDevice... devices) {
        this.devices = devices.clone();
        this.now = startNanos;
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
        for (SoftDevice d : devices) work += d.doWork(now);
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
            for (SoftDevice d : devices) next = Math.min(next, d.nextEventTime());
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
