package org.urdma.transport.engine;

import org.urdma.transport.packet.Link;
import org.urdma.transport.packet.PacketSink;

/**
 * One device's engine pass (its duty cycle): control commands and posts, arrivals, timers, then the ready QPs in
 * round-robin order with their packet budgets, and one flush; or, with an inline driver, the same in the order of the
 * application's latency. The QPs it serves are those with something to do, not all QPs.
 */
final class PassScheduler {
    private final PacketSink sink;
    private final Link link;
    private final EngineGate gate;
    private final EngineTimers timers;
    /** QPs with something to do in the next pass, in round-robin order: the engine's work follows these, not all QPs. */
    private final ReadyQueue ready = new ReadyQueue();
    /** QPs held back by their rate control. */
    private final QpSet paced = new QpSet(QpSet.PACED);
    /** The link pushed back while the QP being served sent: it goes first in the next pass. */
    private boolean servingBlocked;
    /** An inline pass is receiving: a completion ends the link's burst (see {@link #inlinePass}). */
    private boolean cutBurst;
    private boolean completedInPass;
    /** QP visits (progress calls) so far: the engine's cost follows active QPs. */
    private long qpVisits;
    /** Engine passes so far (doWork calls); a coalesced ACK waits for the next one. */
    private long passes;
    /** When the last pass woke the paced QPs: a deadline after it passed while the engine did not run. */
    private long lastWake = Long.MIN_VALUE;

    PassScheduler(PacketSink sink, Link link, EngineGate gate, EngineTimers timers) {
        this.sink = sink;
        this.link = link;
        this.gate = gate;
        this.timers = timers;
    }

    /** One pass at time {@code now}: control commands, posts, receive, timers, transmit. Returns work done. */
    int doWork(long now, Iterable<SoftQp> all) {
        int work = gate.runControl();
        gate.takePosted(ready, all);
        if (gate.drivenInline()) return work + inlinePass(now);
        // arrivals first: an ACK already waiting must count before a timer judges the QP silent
        work += link.receive(now, sink, 256);
        work += timers.poll(now);
        wakePaced(now);
        work += serveReady(now);
        // what this pass produced leaves in this pass: one kernel send for the requests and ACKs together
        work += link.flush(now);
        passes++;
        return work;
    }

    /**
     * The rest of a pass run inside the application's CQ poll (inline driving), in the order of its latency: what it
     * posted leaves first, served and flushed before the link is read, and a received packet that completes a work
     * request ends the receive burst, so the poll returns that completion at once, not after the ring's next slot is
     * read and what arrived is served (both wait for the next poll, behind what the application posts meanwhile; on a
     * TPACKET_V2 ring the next slot is a cache miss on the critical path otherwise). What this pass read counts before a
     * timer judges a QP silent. What arrived is served in the next pass: a coalesced ACK leaves with the application's reply.
     */
    private int inlinePass(long now) {
        int work = serveAndFlush(now);
        completedInPass = false;
        cutBurst = true;
        try {
            work += link.receive(now, sink, 256);
        } finally {
            cutBurst = false;
        }
        work += timers.poll(now);
        passes++;
        return work;
    }

    /** A completion was queued (engine thread): an inline pass returns it before it reads on. */
    void completed() {
        completedInPass = true;
    }

    /** The link's receive burst goes on unless an inline pass has a completion to return. */
    boolean takesMore() {
        return !(cutBurst && completedInPass);
    }

    /**
     * Serves the QPs that were ready when the pass began, each once with its packet budget (txBurst), in FIFO order;
     * one that still has work goes back to the tail, so QPs take turns. When the link pushes back, the pass ends; the
     * QP that met it goes first in the next pass only if it sent nothing (it has not had its turn yet), else behind
     * those not yet served: on a link that frees one slot per pass, going first again would give every slot to it
     * (a READ responder's stream would starve the other QPs' ACKs until their requesters retry out).
     */
    private int serveReady(long now) {
        int work = 0;
        for (int i = ready.size(); i > 0; i--) {
            SoftQp qp = ready.poll();
            if (qp.destroyed) continue;
            servingBlocked = false;
            qpVisits++;
            int w = qp.progress(now);
            work += w;
            if (servingBlocked) {
                servingBlocked = false;
                if (w == 0) ready.addFirst(qp);
                else ready.add(qp);
                break;
            }
            if (qp.pacingDeadline() != Long.MAX_VALUE) paced.add(qp);
            // did something (it may have more), or has a response due; anything else waits for a packet, a timer, a
            // post or its pacing deadline, each of which makes it ready again
            if (w > 0 || qp.responder.hasPendingWork()) ready.add(qp);
        }
        return work;
    }

    /** What the application posted and the QPs that are due leave: paced QPs that may send again, then one flush. */
    int serveAndFlush(long now) {
        wakePaced(now);
        int work = serveReady(now);
        return work + link.flush(now);
    }

    /** {@code qp} has something to do (engine thread). */
    void activate(SoftQp qp) {
        if (!qp.destroyed) ready.add(qp);
    }

    private void wakePaced(long now) {
        for (int i = paced.size() - 1; i >= 0; i--) {
            SoftQp qp = paced.get(i);
            long at = qp.pacingDeadline();
            if (at == Long.MAX_VALUE || qp.destroyed) {
                paced.remove(qp);
            } else if (at <= now) {
                paced.remove(qp);
                ready.add(qp);
                // due while the engine did not run (descheduled, or woke late from its sleep): its lateness, not the QP's
                if (at > lastWake) qp.rate.onEngineLate(at, now);
            }
        }
        lastWake = now;
    }

    /** Earliest time the engine has something to do (link arrival, timer, end of a QP's pacing). */
    long nextEventTime() {
        long timer = timers.earliest();
        long pacedUntil = Long.MAX_VALUE;
        for (int i = 0; i < paced.size(); i++) pacedUntil = Math.min(pacedUntil, paced.get(i).pacingDeadline());
        if (timer != Long.MAX_VALUE && timer < Long.MAX_VALUE - EngineTimers.TICK_NANOS) {
            timer += EngineTimers.TICK_NANOS; // the wheel fires on the tick after the deadline
        }
        return Math.min(link.nextEventTime(), Math.min(timer, pacedUntil));
    }

    /** Whether a ready QP has work it could do right now without time passing. */
    boolean hasReadyWork() {
        for (int i = 0; i < ready.size(); i++) {
            if (ready.get(i).hasPendingWork()) return true;
        }
        return false;
    }

    /** The link pushed back while a QP was being served. */
    void blocked() {
        servingBlocked = true;
    }

    /** A destroyed QP. */
    void remove(SoftQp qp) {
        paced.remove(qp);
    }

    long qpVisits() {
        return qpVisits;
    }

    long passes() {
        return passes;
    }
}
