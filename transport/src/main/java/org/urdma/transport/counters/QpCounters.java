package org.urdma.transport.counters;

import org.agrona.concurrent.status.AtomicCounter;

/**
 * One QP's counters ({@link EngineCounters#qp}): every add goes to the QP's row for that counter (QP-scope counters:
 * in the file while it had room, else in process memory only) and to the device total. Engine thread only.
 */
public final class QpCounters {
    private final int qpn;
    final AtomicCounter[] own;
    private final AtomicCounter[] totals;
    private final boolean tracked;

    QpCounters(int qpn, AtomicCounter[] own, AtomicCounter[] totals, boolean tracked) {
        this.qpn = qpn;
        this.own = own;
        this.totals = totals;
        this.tracked = tracked;
    }

    public int qpn() {
        return qpn;
    }

    /** Has rows in the file (false: the file was full when the QP was made; its own rows are in process memory only). */
    public boolean tracked() {
        return tracked;
    }

    public void add(Counter c, long n) {
        AtomicCounter q = own[c.ordinal()];
        if (q != null) {
            q.getAndAddRelease(n);
        }
        totals[c.ordinal()].getAndAddRelease(n);
    }

    public void increment(Counter c) {
        add(c, 1);
    }

    /** This QP's count (0 for a device-scope counter, which QPs have no row of). */
    public long get(Counter c) {
        AtomicCounter q = own[c.ordinal()];
        return q == null ? 0 : q.get();
    }
}
