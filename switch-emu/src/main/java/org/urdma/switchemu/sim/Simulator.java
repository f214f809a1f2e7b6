package org.urdma.switchemu.sim;

import java.util.PriorityQueue;

/**
 * Discrete-event loop with a virtual clock in ns. Events at the same time run in the order they were
 * scheduled, so a run is deterministic given its seeds.
 */
public final class Simulator {
    private record Event(long time, long seq, Runnable action) implements Comparable<Event> {
        @Override
        public int compareTo(Event o) {
            int c = Long.compare(time, o.time);
            return c != 0 ? c : Long.compare(seq, o.seq);
        }
    }

    private final PriorityQueue<Event> events = new PriorityQueue<>();
    private long now;
    private long seq;
    private long executed;

    public long now() {
        return now;
    }

    public long executed() {
        return executed;
    }

    public void schedule(long at, Runnable action) {
        if (at < now) {
            throw new IllegalArgumentException("cannot schedule in the past: at=" + at + " now=" + now);
        }
        events.add(new Event(at, seq++, action));
    }

    /** Runs events up to and including time {@code until}; the clock ends at {@code until}. */
    public void runUntil(long until) {
        while (!events.isEmpty() && events.peek().time <= until) {
            Event e = events.poll();
            now = e.time;
            executed++;
            e.action.run();
        }
        now = Math.max(now, until);
    }

    /** Runs until no events remain or {@code limit} is reached; returns the final time. */
    public long runToIdle(long limit) {
        while (!events.isEmpty() && events.peek().time <= limit) {
            Event e = events.poll();
            now = e.time;
            executed++;
            e.action.run();
        }
        return now;
    }

    public boolean idle() {
        return events.isEmpty();
    }
}
