package org.urdma.transport.recovery;

import org.urdma.transport.wire.Psn;

/** The PSNs [from, to) a scoreboard walks to find its marked ones, grown as PSNs are marked (24-bit PSN arithmetic). */
final class PsnSpan {
    int from, to;

    boolean isEmpty() {
        return from == to;
    }

    /** Empty, at {@code psn}. */
    void reset(int psn) {
        from = to = psn;
    }

    /** Grows to hold {@code psn}. */
    void add(int psn) {
        if (isEmpty()) {
            from = psn;
            to = Psn.add(psn, 1);
            return;
        }
        if (Psn.before(psn, from)) from = psn;
        if (!Psn.before(psn, to)) to = Psn.add(psn, 1);
    }

    /** Every PSN before {@code acked} is acknowledged: nothing of the span lies before it. */
    void trim(int acked) {
        if (Psn.before(from, acked)) from = acked;
        if (Psn.before(to, acked)) to = acked;
    }
}
