package org.urdma.transport.rate;

/**
 * A per-QP rate limit as a NIC's packet pacing applies it ({@code ibv_modify_qp_rate_limit}: a rate and a maximum
 * burst; perftest {@code --rate_limit_type HW}): every packet the QP sends, first transmissions and retransmissions
 * alike, takes its turn at a fixed payload rate. A token bucket of {@code burstBytes}: a QP that was held back (a late
 * engine pass, a PFC pause, an empty queue) may catch up at most that many bytes at once, then keeps the rate, so a
 * driver woken late loses no rate and a go-back-N rewind never leaves at line rate. Deaf to ACKs and congestion.
 * Exact: the sub-nanosecond remainder of each packet's time is carried to the next.
 */
public final class FixedRate implements RateControl {
    /** Burst of the perf tools' default: one 64 KiB message. */
    public static final int DEFAULT_BURST_BYTES = 65536;
    private static final long NANOS = 1_000_000_000L;
    private final long rateBps;
    private final long burstNanos;
    private long nextAvail = Long.MIN_VALUE;
    /** Numerator remainder (bit·ns units, < rateBps) left over by the last division. */
    private long carry;

    private FixedRate(long rateBps, int burstBytes) {
        this.rateBps = rateBps;
        this.burstNanos = Math.max(0, (long) Math.ceil(burstBytes * 8.0 * NANOS / rateBps));
    }

    /** Policies pacing at {@code rateBps} bits of payload per second, with bursts of up to {@code burstBytes}. */
    public static Factory factory(long rateBps, int burstBytes) {
        if (rateBps < 1) throw new IllegalArgumentException("rate: must be >= 1 bit/s, was " + rateBps);
        if (burstBytes < 0) throw new IllegalArgumentException("burst: must be >= 0 bytes, was " + burstBytes);
        return Factory.of("fixed:" + rateBps, () -> new FixedRate(rateBps, burstBytes));
    }

    /** As {@link #factory(long, int)} with bursts of {@link #DEFAULT_BURST_BYTES}. */
    public static Factory factory(long rateBps) {
        return factory(rateBps, DEFAULT_BURST_BYTES);
    }

    @Override
    public long nextSendTime(long now) {
        return nextAvail;
    }

    @Override
    public void onSent(int payloadBytes, long now) {
        long floor = now - burstNanos; // credit saved up is at most one burst
        long start;
        if (nextAvail == Long.MIN_VALUE || nextAvail < floor) {
            start = floor;
            carry = 0;
        } else {
            start = nextAvail;
        }
        long num = payloadBytes * 8L * NANOS + carry;
        nextAvail = start + num / rateBps;
        carry = num % rateBps;
    }

    @Override
    public String name() {
        return "fixed:" + rateBps;
    }
}
