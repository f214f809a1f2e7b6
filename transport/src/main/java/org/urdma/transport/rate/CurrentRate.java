package org.urdma.transport.rate;

/** A rate-based policy's current sending rate, which a {@link Windowed} window scales with. */
interface CurrentRate {
    /** Current sending rate, payload bit/s. */
    long rateBps();

    /** The rate a QP starts at and never exceeds, payload bit/s. */
    long lineRateBps();
}
