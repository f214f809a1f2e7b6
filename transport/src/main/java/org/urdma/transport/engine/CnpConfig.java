package org.urdma.transport.engine;

/**
 * A device's ECN notification settings, like a NIC's: the responder answers CE-marked packets with at most one CNP per
 * QP per {@code intervalNanos} (DCQCN's notification point; NIC default 50 µs; 0 answers every CE packet), and, when
 * {@code mergeNanos} is above 0, received CNPs pass PAXI's CNP merge with TIMER_THR = {@code mergeNanos} (0: off, the
 * RoCE behaviour).
 */
public record CnpConfig(long intervalNanos, long mergeNanos) {
    public static final long DEFAULT_INTERVAL_NANOS = 50_000;

    public CnpConfig {
        if (intervalNanos < 0) throw new IllegalArgumentException("cnp interval: must be >= 0 ns, was " + intervalNanos);
        if (mergeNanos < 0) throw new IllegalArgumentException("cnp merge TIMER_THR: must be >= 0 ns (0 = off), was " + mergeNanos);
    }

    /** 50 µs between CNPs per QP, no merge. */
    public static CnpConfig defaults() {
        return new CnpConfig(DEFAULT_INTERVAL_NANOS, 0);
    }
}
