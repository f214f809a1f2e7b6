package org.urdma.transport.recovery;

import org.urdma.transport.wire.Psn;

/**
 * URDMA TC-SACK (WIRE.md §10): the receiver places packets in any order and ACKs every N packets or T µs with a
 * SACK-ETH listing the missing PSN ranges; this scoreboard marks exactly those PSNs and resends them one by one from
 * {@link #retransmit} (each requester pass, before new packets and apart from the rate control's pacing). A PSN resent
 * less than about one RTT ago is not resent again for a repeated SACK (the resend may still be in flight). Resends take
 * the rate control's turns like new packets. The ACK timeout stays as the backstop: it resends the oldest
 * unacknowledged PSN and the newest sent one, a probe that makes the receiver list a lost tail in its next SACK. No
 * retry_cnt is spent per SACK; only timeouts count.
 */
public final class Sack implements LossRecovery {
    public static final int DEFAULT_ACK_EVERY = 16;
    /** 200 us: at 20 us a 1 Gbit/s flow of 4 KiB packets (one per 33 us) got an ACK per packet; their flood overran
     * the sender's receive ring (ACKs lost, SACK reports with them). Message ends (AckReq) are answered at once. */
    public static final long DEFAULT_ACK_DELAY_NANOS = 200_000;
    /** PSNs the scoreboard tracks past the oldest unacknowledged one, at least (it grows to the QP's window). */
    public static final int WINDOW = 1 << 15;
    private static final int MAX_WINDOW = 1 << 22;
    /** Before any RTT sample: how long a resent PSN is not resent again. */
    private static final long MIN_HOLDOFF_NANOS = 20_000;
    private static final int BURST = 64;
    private static final byte IDLE = 0;
    private static final LossCause[] CAUSES = LossCause.values();

    private final int ackEvery;
    private final long ackDelayNanos;
    /** PSNs tracked (a power of two) and its mask. */
    private int window = WINDOW;
    private int mask = WINDOW - 1;
    /** Per PSN (mod window): IDLE or the {@link LossCause} ordinal + 1 it is marked for. */
    private byte[] marked = new byte[WINDOW];
    /** Per PSN (mod window): when it was last resent. */
    private long[] resentAt = new long[WINDOW];
    /** Every PSN before it is acknowledged. */
    private int acked;
    private boolean started;
    /** Marked PSNs lie in [scanFrom, scanTo). */
    private int scanFrom, scanTo;
    private long srtt, rttvar;
    private long resent;

    private Sack(int ackEvery, long ackDelayNanos) {
        if (ackEvery < 0) throw new IllegalArgumentException("sack: N must be >= 0, was " + ackEvery);
        if (ackDelayNanos <= 0) throw new IllegalArgumentException("sack: T must be > 0 us, was " + ackDelayNanos + " ns");
        this.ackEvery = ackEvery;
        this.ackDelayNanos = ackDelayNanos;
        java.util.Arrays.fill(resentAt, Long.MIN_VALUE);
    }

    static Factory factory(int ackEvery, long ackDelayNanos) {
        new Sack(ackEvery, ackDelayNanos); // bad parameters fail when the factory is made, not per QP
        String name = ackEvery == DEFAULT_ACK_EVERY && ackDelayNanos == DEFAULT_ACK_DELAY_NANOS ? "sack"
                : "sack:" + ackEvery + "/" + ackDelayNanos / 1000;
        return Factory.of(name, () -> new Sack(ackEvery, ackDelayNanos));
    }

    /** Grows the scoreboard to the requester's window (connection setup, before any packet: nothing to carry over). */
    @Override
    public void window(int packets) {
        int w = window;
        while (w < packets && w < MAX_WINDOW) w <<= 1;
        if (w == window) return;
        window = w;
        mask = w - 1;
        marked = new byte[w];
        resentAt = new long[w];
        java.util.Arrays.fill(resentAt, Long.MIN_VALUE);
    }

    @Override
    public void onLoss(int psn, LossCause cause, Retransmitter requester, long now) {
        if (!started) start(psn);
        if (cause == LossCause.TIMEOUT) {
            // the oldest PSN, and the newest sent as a probe: once it arrives the receiver's SACK lists every PSN of a
            // lost tail, which is then resent exactly. Resending the whole unreported tail instead cost a window of
            // packets per timeout when only ACKs were late (a switch or receiver stalled for longer than the timeout)
            mark(psn, cause, now, true);
            int end = requester.firstUnsentPsn();
            if (end < 0) return;
            int newest = Psn.add(end, -1);
            if (Psn.after(newest, psn) && Psn.diff(newest, acked) < window) mark(newest, cause, now, true);
            return;
        }
        mark(psn, cause, now, false);
    }

    @Override
    public void onSack(int start, int length, Retransmitter requester, long now) {
        if (!started) start(start);
        for (int i = 0; i < length; i++) mark(Psn.add(start, i), LossCause.SACK, now, false);
    }

    /** Starts at the QP's first PSN (RTS); a scoreboard never told starts at the first PSN it hears of. */
    @Override
    public void start(int firstPsn) {
        started = true;
        acked = scanFrom = scanTo = firstPsn;
    }

    /** Marks {@code psn} for resending unless acknowledged, out of the window, or (unless forced) resent within ~1 RTT. */
    private void mark(int psn, LossCause cause, long now, boolean force) {
        if (Psn.before(psn, acked) || Psn.diff(psn, acked) >= window) return;
        int i = psn & mask;
        if (!force && resentAt[i] != Long.MIN_VALUE && now - resentAt[i] < holdoff()) return;
        marked[i] = (byte) (cause.ordinal() + 1);
        if (Psn.before(psn, scanFrom)) scanFrom = psn;
        if (!Psn.before(psn, scanTo)) scanTo = Psn.add(psn, 1);
    }

    /**
     * How long a resent PSN is not resent again for a repeated SACK: about a round trip (SRTT + 4 x its variation, as
     * TCP's RTO) plus the receiver's ACK delay, since a SACK may have been held that long before it left. Without the
     * variation and the delay, repeats through a queue that grew resent most PSNs two to five times.
     */
    private long holdoff() {
        return Math.max(MIN_HOLDOFF_NANOS, srtt + 4 * rttvar + ackDelayNanos);
    }

    @Override
    public int retransmit(Retransmitter requester, long now) {
        int sent = 0;
        if (scanFrom == scanTo) return 0;
        if (Psn.before(scanFrom, acked)) scanFrom = acked;
        int p = scanFrom;
        LossCause lastCause = null;
        while (Psn.before(p, scanTo) && sent < BURST) {
            int i = p & mask;
            byte m = marked[i];
            if (m != IDLE) {
                LossCause cause = CAUSES[m - 1];
                if (cause != lastCause) {
                    requester.resendReason(cause);
                    lastCause = cause;
                }
                if (!requester.resend(p, now)) break; // back-pressure: the rest stays marked for the next pass
                marked[i] = IDLE;
                resentAt[i] = now;
                resent++;
                sent++;
            }
            p = Psn.add(p, 1);
        }
        scanFrom = p;
        if (scanFrom == scanTo) scanFrom = scanTo = acked;
        if (Psn.before(scanTo, acked)) scanFrom = scanTo = acked;
        return sent;
    }

    @Override
    public boolean hasResends() {
        return scanFrom != scanTo;
    }

    @Override
    public void onAcknowledged(int psn, long now) {
        if (!started) start(psn);
        if (!Psn.after(psn, acked)) return;
        // clear what the ACK covers so the slots are clean when the PSNs come round again
        for (int p = acked; Psn.before(p, psn) && Psn.diff(p, acked) < window; p = Psn.add(p, 1)) {
            marked[p & mask] = IDLE;
            resentAt[p & mask] = Long.MIN_VALUE;
        }
        acked = psn;
        if (Psn.before(scanFrom, acked)) scanFrom = acked;
        if (Psn.before(scanTo, acked)) scanTo = acked;
    }

    @Override
    public void onRtt(long rttNanos, long now) {
        if (rttNanos <= 0) return;
        if (srtt == 0) {
            srtt = rttNanos;
            rttvar = rttNanos / 2;
            return;
        }
        rttvar = rttvar - (rttvar >> 2) + (Math.abs(srtt - rttNanos) >> 2);
        srtt = srtt - (srtt >> 3) + (rttNanos >> 3);
    }

    /** PSNs this scoreboard sent again. */
    public long resent() {
        return resent;
    }

    @Override
    public int expectedAfterGap(int expectedPsn, int messageStartPsn) {
        return expectedPsn;
    }

    @Override
    public boolean discardsPartialMessage() {
        return false;
    }

    @Override
    public int ackReqInterval() {
        return GoBackN.ACK_REQ_INTERVAL;
    }

    @Override
    public boolean selective() {
        return true;
    }

    @Override
    public int ackEvery() {
        return ackEvery;
    }

    @Override
    public long ackDelayNanos() {
        return ackDelayNanos;
    }

    @Override
    public String name() {
        return ackEvery == DEFAULT_ACK_EVERY && ackDelayNanos == DEFAULT_ACK_DELAY_NANOS ? "sack"
                : "sack:" + ackEvery + "/" + ackDelayNanos / 1000;
    }
}
