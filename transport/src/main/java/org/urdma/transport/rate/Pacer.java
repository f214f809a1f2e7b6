package org.urdma.transport.rate;

/**
 * A per-QP next-available time at a rate (HPCC's {@code m_nextAvail}, {@code UpdateNextAvail}, {@code ChangeRate}):
 * a packet of B bytes keeps the QP busy for B × 8 / rate seconds from when it left (or from when the previous one
 * freed the QP, if it left early). Time is exact: the sub-nanosecond remainder of each packet's time is carried to
 * the next, so n packets take exactly n × B × 8 / rate, never rounded per packet. A rate change re-times the last
 * packet at the new rate, so a cut takes effect at once. Payload bytes of at most 1 MiB per packet.
 * <p>A packet that leaves late (the QP was served after its next-available time) keeps up to {@link #CREDIT_PACKETS}
 * packet times of that lateness, or with RRCC's pacer up to {@link #CREDIT_BYTES} if that is more: a real-time engine
 * wakes some microseconds after the deadline, and starting each packet's time from when it left lost that every
 * packet (a 1 Gbit/s pace of 4 KiB packets, one per 33 us, ran at 0.65 of it on a two-core machine). A QP idle for
 * longer keeps no more, so a burst is never more than that.
 */
final class Pacer {
    private static final long NANOS = 1_000_000_000L;
    /** Lateness a packet keeps, in times of the last packet. */
    static final int CREDIT_PACKETS = 4;
    /**
     * Lateness an RRCC packet keeps at least, in bytes at the current rate: an engine thread that shares a core is
     * preempted for a scheduler slice (milliseconds), and at 1 Gbit/s through the WAN scenario's switch on two cores,
     * 4 packet times (133 us) of credit lost a tenth of the rate to it (0.90 of the bottleneck at 20 ms, 0.94 with
     * this). DCQCN keeps a NIC's 4 packets: its simulated fabrics' fairness depends on them.
     */
    static final int CREDIT_BYTES = 256 * 1024;
    private long rateBps;
    private long nextAvail = Long.MIN_VALUE;
    /** Numerator remainder (bit·ns units, < rateBps) left over by the last division. */
    private long carry;
    private long lastStart;
    private long lastBits;

    /** Lateness a packet keeps at least, in bytes ({@link #CREDIT_BYTES} or 0: only {@link #creditPackets}). */
    private final long creditBits;
    /** Lateness a packet keeps, in times of the last packet ({@link #CREDIT_PACKETS}, or 0 for a strict pace). */
    private final int creditPackets;
    /**
     * Lateness kept until the QP has caught up, after the engine itself was late ({@link #engineLate}); 0 when the
     * usual credit applies.
     */
    private long stallCreditNanos;

    /** A pacer that keeps up to {@link #CREDIT_PACKETS} packet times of lateness (a NIC's per-packet pacing: DCQCN). */
    Pacer(long rateBps) {
        this(rateBps, 0);
    }

    /** A pacer that keeps at least {@code creditBytes} of lateness ({@link #CREDIT_BYTES} for a real-time WAN sender). */
    Pacer(long rateBps, int creditBytes) {
        this(rateBps, creditBytes, CREDIT_PACKETS);
    }

    private Pacer(long rateBps, int creditBytes, int creditPackets) {
        this.rateBps = rateBps;
        this.creditBits = creditBytes * 8L;
        this.creditPackets = creditPackets;
    }

    /**
     * A pacer that keeps no lateness: a packet that leaves late starts the next one's time from when it left, as HPCC's
     * NIC sets {@code m_nextAvail} (a window-limited QP then never bursts into the queue its telemetry reads).
     */
    static Pacer strict(long rateBps) {
        return new Pacer(rateBps, 0, 0);
    }

    long rate() {
        return rateBps;
    }

    long nextAvail() {
        return nextAvail;
    }

    /** A packet of {@code bytes} left at {@code now}. */
    void sent(int bytes, long now) {
        long start;
        if (nextAvail == Long.MIN_VALUE) {
            start = now;
            carry = 0;
        } else if (now > nextAvail) {
            // late: keep the lateness up to a few packet times (of the last packet at the current rate), or what an
            // engine stall left to make up
            long credit = Math.max(nanosOf(Math.max(creditPackets * lastBits, creditBits)), stallCreditNanos);
            start = Math.max(nextAvail, now - credit);
            if (start != nextAvail) carry = 0;
        } else {
            start = nextAvail;
        }
        lastStart = start;
        lastBits = bytes * 8L;
        long num = lastBits * NANOS + carry;
        nextAvail = start + num / rateBps;
        carry = num % rateBps;
        if (nextAvail >= now) stallCreditNanos = 0; // caught up
    }

    /**
     * The engine did not run from the QP's deadline to {@code now}: the packets due meanwhile leave now, back to back,
     * up to {@code maxNanos} of them (what the caller lets a bottleneck queue take at once). Lateness of a QP that had
     * nothing to send is not the engine's and keeps only the usual credit.
     */
    void engineLate(long now, long maxNanos) {
        if (nextAvail == Long.MIN_VALUE || now <= nextAvail) return;
        stallCreditNanos = Math.max(stallCreditNanos, maxNanos);
    }

    /**
     * The link refused a packet at {@code now} (a PFC/PAUSE pause, no CBFC credit, a full ring): lateness gathered while
     * the link held the QP is not the engine's, so at most {@link #CREDIT_PACKETS} packet times of it are kept. With the
     * whole pause kept as credit, the QP burst up to {@link #CREDIT_BYTES} at line rate the moment XON came, into the
     * switch queue that had just paused it (0 ms RTT through the WAN scenario's switch: 2533 headroom drops in 8 s).
     */
    void held(long now) {
        stallCreditNanos = 0; // the link's wait, not the engine's
        if (nextAvail == Long.MIN_VALUE || rateBps <= 0) return;
        long floor = now - nanosOf(creditPackets * lastBits);
        if (nextAvail < floor) {
            nextAvail = floor;
            carry = 0;
        }
    }

    /** How long {@code bits} take at the current rate. */
    private long nanosOf(long bits) {
        return bits * NANOS / rateBps;
    }

    /** From now on pace at {@code newRateBps}; the last packet is re-timed at it. */
    void rate(long newRateBps) {
        if (newRateBps == rateBps) return;
        rateBps = newRateBps;
        if (nextAvail == Long.MIN_VALUE) return;
        long num = lastBits * NANOS;
        nextAvail = lastStart + num / rateBps;
        carry = num % rateBps;
    }
}
