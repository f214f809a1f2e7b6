package org.urdma.transport.counters;

/**
 * A read-only view of one device's engine counters (totals over its QPs, destroyed ones included) and of its
 * scheduler, for tools and tests in the device's process.
 */
public interface DeviceStats {
    /** {@return the device total of {@code c}} */
    long get(Counter c);

    /**
     * {@return the count of a {@link Counter.Scope#PRIORITY} counter for one priority}
     *
     * @throws IllegalArgumentException when {@code c} is not counted per priority
     */
    long get(Counter c, int priority);

    /** {@return the engine passes completed so far} */
    long passes();

    /** {@return the QP visits so far (one per ready QP per pass): proportional to QPs with work, not to QPs that exist} */
    long qpVisits();

    /** {@return the QPs that exist on the device now} */
    int qpCount();

    /**
     * {@return the packets a QP dropped: its state or transport does not take them, or they came from another source
     * than its peer} Unknown QPs and foreign P_Keys are {@link Counter#DROP_UNKNOWN_QP} and {@link Counter#DROP_BAD_PKEY}.
     */
    default long qpDrops() {
        return get(Counter.DROP_WRONG_STATE) + get(Counter.DROP_BAD_OPCODE) + get(Counter.DROP_FOREIGN_SOURCE);
    }
}
