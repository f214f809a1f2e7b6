package org.urdma.transport.rate;

/**
 * PAXI's CNP merge at the receiving RC Link (seed 004 §4.2, WIRE.md §9): an 8-entry QPID buffer with a time per entry.
 * A CNP for a QPID not in the buffer passes and takes an entry (the oldest entry gives way when all 8 are used). A CNP
 * for a QPID in the buffer is dropped (merged) while less than {@code TIMER_THR} has passed since the last CNP that
 * passed for it, and passes otherwise, restarting its time. Timing from the last CNP that passed, not the last one
 * seen, so a QPID under a steady CNP stream still gets one CNP per TIMER_THR through. Engine thread only; no allocation.
 */
public final class CnpMerge {
    public static final int ENTRIES = 8;
    private final long timerThr;
    private final int[] qpid = new int[ENTRIES];
    private final long[] passedAt = new long[ENTRIES];
    private int used;
    /** Entry the next new QPID replaces once the buffer is full (oldest first). */
    private int next;
    private long passed;
    private long merged;

    /** @param timerThrNanos TIMER_THR: CNPs for one QPID closer together than this are merged; must be > 0 */
    public CnpMerge(long timerThrNanos) {
        if (timerThrNanos <= 0) throw new IllegalArgumentException("TIMER_THR: must be > 0 ns, was " + timerThrNanos);
        this.timerThr = timerThrNanos;
    }

    /** A CNP for {@code qpid} arrived at {@code now}: true when it passes to the QP, false when it is merged. */
    public boolean admit(int qpid, long now) {
        for (int i = 0; i < used; i++) {
            if (this.qpid[i] == qpid) {
                if (now - passedAt[i] < timerThr) {
                    merged++;
                    return false;
                }
                passedAt[i] = now;
                passed++;
                return true;
            }
        }
        int slot;
        if (used < ENTRIES) {
            slot = used++;
        } else {
            slot = next;
            next = (next + 1) % ENTRIES;
        }
        this.qpid[slot] = qpid;
        passedAt[slot] = now;
        passed++;
        return true;
    }

    public long timerThrNanos() {
        return timerThr;
    }

    /** CNPs that passed to their QP. */
    public long passed() {
        return passed;
    }

    /** CNPs dropped as duplicates inside TIMER_THR. */
    public long merged() {
        return merged;
    }
}
