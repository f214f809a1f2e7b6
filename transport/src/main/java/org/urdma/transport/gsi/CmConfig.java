package org.urdma.transport.gsi;

/**
 * Timing of one CM agent, in IBTA's encodings: a response timeout {@code t} means 4.096 µs × 2^t.
 *
 * @param responseTimeout how long this side waits for an answer before resending (rdma_cm: 20, about 4.3 s)
 * @param maxRetries      resends before giving up with a REJ (timeout); rdma_cm: 15
 * @param serviceTimeout  what an MRA promises when the application answers a REQ late
 */
public record CmConfig(int responseTimeout, int maxRetries, int serviceTimeout) {
    public CmConfig {
        if (responseTimeout < 0 || responseTimeout > 31) throw new IllegalArgumentException("responseTimeout: must be 0..31, was " + responseTimeout);
        if (maxRetries < 0 || maxRetries > 15) throw new IllegalArgumentException("maxRetries: must be 0..15, was " + maxRetries);
        if (serviceTimeout < 0 || serviceTimeout > 31) throw new IllegalArgumentException("serviceTimeout: must be 0..31, was " + serviceTimeout);
    }

    /** About 268 ms per try and 15 tries: a lost MAD costs a quarter second, a dead peer four seconds. */
    public static CmConfig defaults() {
        return new CmConfig(16, 15, 20);
    }

    public static long nanos(int timeout) {
        return 4096L << timeout;
    }
}
