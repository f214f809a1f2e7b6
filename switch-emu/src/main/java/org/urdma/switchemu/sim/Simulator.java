package org.urdma.switchemu.sim;

import java.util.Arrays;
import java.util.function.BooleanSupplier;

/**
 * The discrete-event core of every simulation here: a virtual clock in ns and one {@link EventQueue}. Events at the
 * same time run in the order they were scheduled, so a run is deterministic given its seeds. An event is either a
 * {@link Runnable} or a primitive code (&ge; 0) that the simulator's {@link Handler} decodes; primitive events and
 * the reuse of task slots keep a hot path that schedules by code free of allocation.
 */
public final class Simulator {
    /** Decodes the primitive events of the world that owns the simulator. */
    @FunctionalInterface
    public interface Handler {
        void onEvent(long code, long now);
    }

    /** Tasks are codes with the sign bit set; the rest of the code is the task's slot. */
    private static final long TASK = Long.MIN_VALUE;

    private final EventQueue events = new EventQueue();
    private final Handler handler;
    private Runnable[] tasks = new Runnable[64];
    private int[] freeSlots = new int[64];
    private int free;
    private int slots;
    private long now;
    private long executed;

    /** A simulator of {@link Runnable} events from time 0. */
    public Simulator() {
        this(0, (code, now) -> {
            throw new IllegalStateException("event code " + code + ": this simulator has no handler");
        });
    }

    /** A simulator from {@code startNs} whose primitive events go to {@code handler}. */
    public Simulator(long startNs, Handler handler) {
        this.now = startNs;
        this.handler = handler;
    }

    public long now() {
        return now;
    }

    /** Events run so far. */
    public long executed() {
        return executed;
    }

    public void schedule(long at, Runnable action) {
        if (at < now) {
            throw new IllegalArgumentException("cannot schedule in the past: at=" + at + " now=" + now);
        }
        int slot = free > 0 ? freeSlots[--free] : newSlot();
        tasks[slot] = action;
        events.add(at, TASK | slot);
    }

    /** Schedules primitive event {@code code} (&ge; 0) for the handler at {@code at}. */
    public void schedule(long at, long code) {
        events.add(at, code);
    }

    /** Runs events up to and including time {@code until}; the clock ends at {@code until}. */
    public void runUntil(long until) {
        while (!events.isEmpty() && events.peekTime() <= until) step();
        now = Math.max(now, until);
    }

    /**
     * As {@link #runUntil(long)}, but stops after the first event that leaves {@code done} true (the clock stays at
     * that event).
     *
     * @return whether {@code done} stopped the run
     */
    public boolean runUntil(long until, BooleanSupplier done) {
        while (!events.isEmpty() && events.peekTime() <= until) {
            step();
            if (done.getAsBoolean()) return true;
        }
        now = Math.max(now, until);
        return false;
    }

    /** Runs until no events remain or {@code limit} is reached; returns the final time. */
    public long runToIdle(long limit) {
        while (!events.isEmpty() && events.peekTime() <= limit) step();
        return now;
    }

    public boolean idle() {
        return events.isEmpty();
    }

    private void step() {
        long t = events.peekTime();
        long code = events.peekCode();
        events.pop();
        now = t;
        executed++;
        if (code >= 0) {
            handler.onEvent(code, t);
            return;
        }
        int slot = (int) (code & ~TASK);
        Runnable action = tasks[slot];
        tasks[slot] = null;
        freeSlots[free++] = slot;
        action.run();
    }

    private int newSlot() {
        if (slots == tasks.length) {
            tasks = Arrays.copyOf(tasks, slots * 2);
            freeSlots = Arrays.copyOf(freeSlots, slots * 2);
        }
        return slots++;
    }
}
