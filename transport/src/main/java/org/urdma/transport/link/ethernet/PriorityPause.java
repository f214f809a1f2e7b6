package org.urdma.transport.link.ethernet;

import org.urdma.transport.counters.Counter;
import org.urdma.transport.counters.EngineCounters;
import org.urdma.transport.wire.MacControlFrame;

/**
 * The TX gate of received PFC and PAUSE frames, as a NIC's MAC keeps it: priority p may not start a frame before
 * {@code until[p]}. A PFC frame sets the priorities of its class-enable vector, a PAUSE frame all eight, each for
 * quanta x 512 bit times at the link's rate from the frame's arrival; a time of 0 (XON) resumes at once. A new frame
 * replaces the running time (802.1Qbb). Counts frames and paused time per priority. Engine thread only; time is the
 * caller's {@code now}.
 */
final class PriorityPause {
    private static final int PRIORITIES = MacControlFrame.PRIORITIES;

    private final LinkCounters counters;
    private final long rateBps;
    /** End of the pause of each priority, 0 when it may send. */
    private final long[] until = new long[PRIORITIES];
    /** When the running pause of each priority began. */
    private final long[] since = new long[PRIORITIES];
    private long nextEnd = Long.MAX_VALUE;
    private EngineCounters engine;

    PriorityPause(LinkCounters counters, long rateBps) {
        if (rateBps <= 0) throw new IllegalArgumentException("linkRate: must be > 0 bit/s, was " + rateBps);
        this.counters = counters;
        this.rateBps = rateBps;
    }

    long rateBps() {
        return rateBps;
    }

    void engineCounters(EngineCounters c) {
        engine = c;
    }

    /** A pause time of {@code quanta} for every priority whose bit is set in {@code priorities}, received at {@code now}. */
    void onPause(int priorities, int quanta, long now) {
        long end = quanta == 0 ? now : now + MacControlFrame.quantaToNanos(quanta, rateBps);
        for (int p = 0; p < PRIORITIES; p++) {
            if ((priorities & (1 << p)) != 0) set(p, end, now);
        }
        nextEnd = earliest();
    }

    private void set(int p, long end, long now) {
        counters.pauseFrames[p]++;
        if (engine != null) engine.add(Counter.PAUSE_FRAMES_RCVD, p, 1);
        if (until[p] != 0 && until[p] <= now) expire(p); // the last pause ran out before this frame
        if (end <= now) {
            if (until[p] != 0) account(p, now); // XON
            until[p] = 0;
        } else {
            if (until[p] == 0) since[p] = now;
            until[p] = end;
        }
    }

    /** Whether priority {@code p} may not start a frame at {@code now}. */
    boolean paused(int p, long now) {
        long u = until[p];
        if (u == 0) return false;
        if (now < u) return true;
        expire(p);
        nextEnd = earliest();
        return false;
    }

    /** Ends the pauses that ran out by {@code now}, so their time is counted without a send on that priority. */
    void poll(long now) {
        if (nextEnd > now) return;
        for (int p = 0; p < PRIORITIES; p++) {
            if (until[p] != 0 && until[p] <= now) expire(p);
        }
        nextEnd = earliest();
    }

    /** When the earliest running pause ends, or Long.MAX_VALUE. */
    long nextEnd() {
        return nextEnd;
    }

    private void expire(int p) {
        account(p, until[p]);
        until[p] = 0;
    }

    private void account(int p, long end) {
        long ns = end - since[p];
        counters.pauseTimeNs[p] += ns;
        if (engine != null) engine.add(Counter.PAUSE_TIME_NS, p, ns);
    }

    private long earliest() {
        long e = Long.MAX_VALUE;
        for (long u : until) {
            if (u != 0) e = Math.min(e, u);
        }
        return e;
    }
}
