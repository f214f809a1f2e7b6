package org.urdma.transport.recovery;

import org.urdma.transport.wire.Psn;

/**
 * URDMA TC-SACK (WIRE.md §10): the receiver places packets in any order and ACKs every N packets or T µs with a
 * SACK-ETH listing the missing PSN ranges. A listed PSN is not resent at once: it may still be on its way (reordered,
 * or the report came from a forged request far ahead). As RACK (RFC 8985) does, the scoreboard keeps each PSN's send
 * time and counts a reported PSN as lost only once the receiver has a PSN sent after it, by more than the reorder
 * window, or a round trip and the window have passed since it was sent and the receiver has one sent after it; until
 * then it waits ({@link #nextCheck}), and a later report that no longer lists it clears it. Lost PSNs are resent one by
 * one from {@link #retransmit} (each requester pass, before new packets, taking the rate control's turns). A report
 * naming PSNs never sent is cut there. The ACK timeout stays as the backstop: it resends the oldest unacknowledged PSN
 * and the newest sent one, a probe that makes the receiver list a lost tail in its next SACK. No retry_cnt is spent
 * per SACK; only timeouts count.
 */
public final class Sack implements LossRecovery {
    public static final int DEFAULT_ACK_EVERY = 16;
    /** 200 us: at 20 us a 1 Gbit/s flow of 4 KiB packets (one per 33 us) got an ACK per packet; their flood overran
     * the sender's receive ring (ACKs lost, SACK reports with them). Message ends (AckReq) are answered at once. */
    public static final long DEFAULT_ACK_DELAY_NANOS = 200_000;
    /** PSNs the scoreboard tracks past the oldest unacknowledged one, at least (it grows to the QP's window). */
    public static final int WINDOW = 1 << 15;
    private static final int MAX_WINDOW = 1 << 22;
    /** Before any RTT sample: how long a resent PSN is not resent again for a NAK or READ gap. */
    private static final long MIN_HOLDOFF_NANOS = 20_000;
    /**
     * The reorder window is a quarter of the smoothed RTT within these bounds: at least what a link that holds frames
     * back reorders by (netem-style reordering delays the others by 20 us), at most what a path's queue adds.
     */
    static final long MIN_REORDER_NANOS = 50_000;
    static final long MAX_REORDER_NANOS = 100_000_000;
    private static final int BURST = 64;
    private static final byte IDLE = 0;
    /** Listed missing by a SACK, not judged lost yet. */
    private static final byte REPORTED = -1;
    private static final LossCause[] CAUSES = LossCause.values();

    private final int ackEvery;
    private final long ackDelayNanos;
    /** PSNs tracked (a power of two) and its mask. */
    private int window = WINDOW;
    private int mask = WINDOW - 1;
    /** Per PSN (mod window): IDLE, REPORTED, or the {@link LossCause} ordinal + 1 it is marked to be resent for. */
    private byte[] marked = new byte[WINDOW];
    /** Per PSN (mod window): when it was last sent (Long.MIN_VALUE: not sent, or acknowledged). */
    private long[] sentAt = new long[WINDOW];
    /** Per PSN (mod window): sent more than once, so a report that it arrived may be the first copy's. */
    private boolean[] resentOnce = new boolean[WINDOW];
    /** Every PSN before it is acknowledged. */
    private int acked;
    /** One past the highest PSN sent, and one past the highest resent (below it send times are not in PSN order). */
    private int sentEnd, resentEnd;
    private boolean started;
    /** Where marked PSNs lie, and where REPORTED ones do. */
    private final PsnSpan scan = new PsnSpan();
    private final PsnSpan reports = new PsnSpan();
    private long srtt, rttvar;
    /** RACK: the send time and PSN of the latest-sent packet the receiver has, its round trip, and the least one. */
    private long rackSentAt = Long.MIN_VALUE;
    private int rackPsn;
    private long rackRtt;
    private long minRtt = Long.MAX_VALUE;
    /** Reports or deliveries came since the last judgement; when a waiting PSN's reorder wait ends. */
    private boolean judgeDue;
    private long judgeAt = Long.MAX_VALUE;
    private long resent;

    private Sack(int ackEvery, long ackDelayNanos) {
        if (ackEvery < 0) throw new IllegalArgumentException("sack: N must be >= 0, was " + ackEvery);
        if (ackDelayNanos <= 0) throw new IllegalArgumentException("sack: T must be > 0 us, was " + ackDelayNanos + " ns");
        this.ackEvery = ackEvery;
        this.ackDelayNanos = ackDelayNanos;
        java.util.Arrays.fill(sentAt, Long.MIN_VALUE);
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
        sentAt = new long[w];
        resentOnce = new boolean[w];
        java.util.Arrays.fill(sentAt, Long.MIN_VALUE);
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
    public int onSack(int cumulative, int[] start, int[] length, int count, Retransmitter requester, long now) {
        if (!started) start(cumulative);
        // this report replaces what earlier ones said from where it starts: a PSN they listed and it does not has
        // arrived, or lies past the receiver's highest PSN (nothing sent after it has arrived: nothing to judge yet)
        int from = count > 0 && Psn.after(start[0], cumulative) ? start[0] : cumulative; // a full SACK's rest starts on
        for (int p = Psn.after(from, reports.from) ? from : reports.from; Psn.before(p, reports.to); p = Psn.add(p, 1)) {
            if (marked[p & mask] == REPORTED) marked[p & mask] = IDLE;
        }
        int unsent = 0;
        int prevEnd = from;
        for (int r = 0; r < count; r++) {
            int s = start[r];
            if (Psn.before(s, prevEnd)) break; // out of order or overlapping: not a receiver's report
            if (!Psn.before(s, sentEnd)) {
                unsent++;
                break;
            }
            if (r > 0) delivered(prevEnd, s, now); // between two missing ranges: the receiver has these
            int e = Psn.add(s, length[r]);
            if (Psn.after(e, sentEnd)) {
                unsent++;
                e = sentEnd;
            }
            for (int p = s; Psn.before(p, e); p = Psn.add(p, 1)) report(p);
            prevEnd = e;
            if (unsent > 0) break;
        }
        judgeDue = true;
        return unsent;
    }

    @Override
    public void onSent(int psn, int psns, long now) {
        if (!started) start(psn);
        if (Psn.before(psn, acked)) return;
        boolean again = Psn.before(psn, sentEnd);
        int n = Math.min(psns, window);
        for (int k = 0; k < n; k++) {
            int p = Psn.add(psn, k);
            if (Psn.diff(p, acked) >= window) break;
            int i = p & mask;
            sentAt[i] = now;
            if (again) resentOnce[i] = true;
        }
        int end = Psn.add(psn, psns);
        if (Psn.after(end, sentEnd)) sentEnd = end;
        if (again && Psn.after(end, resentEnd)) resentEnd = end;
    }

    @Override
    public void onDelivered(int psn, long now) {
        if (!started || Psn.before(psn, acked) || !Psn.before(psn, sentEnd)) return;
        delivered(psn, Psn.add(psn, 1), now);
    }

    /** The receiver has the PSNs in [from, to): none of them is missing, and RACK hears of the latest-sent one. */
    private void delivered(int from, int to, long now) {
        for (int p = from; Psn.before(p, to); p = Psn.add(p, 1)) {
            if (Psn.diff(p, acked) >= window) return;
            int i = p & mask;
            if (marked[i] == REPORTED) marked[i] = IDLE;
            heard(p, i, now);
        }
    }

    /**
     * RACK's update (RFC 8985 6.2): {@code psn} arrived. Its send time becomes the reference when it is the latest
     * sent; a resent one whose round trip would be shorter than the least seen counts as the first copy's arrival.
     */
    private void heard(int psn, int i, long now) {
        long t = sentAt[i];
        if (t == Long.MIN_VALUE) return;
        long rtt = now - t;
        if (resentOnce[i]) {
            if (rtt < minRtt) return;
        } else if (rtt > 0 && rtt < minRtt) {
            minRtt = rtt;
        }
        if (t > rackSentAt || (t == rackSentAt && Psn.after(psn, rackPsn))) {
            rackSentAt = t;
            rackPsn = psn;
            rackRtt = Math.max(0, rtt);
            judgeDue = true;
        }
    }

    /** A SACK lists {@code psn} as missing: it waits to be judged, unless marked already or out of the window. */
    private void report(int psn) {
        if (Psn.before(psn, acked) || Psn.diff(psn, acked) >= window) return;
        int i = psn & mask;
        if (marked[i] != IDLE || sentAt[i] == Long.MIN_VALUE) return;
        marked[i] = REPORTED;
        reports.add(psn);
    }

    /**
     * RACK's loss detection (RFC 8985 6.2 step 5) over the reported PSNs: one sent before the latest-sent PSN the
     * receiver has is lost when it was sent more than the reorder window before it, or when a round trip, the window
     * and the receiver's ACK delay (the ACK that would show it arrived late may be held that long) have passed since
     * it was sent. Others wait. Below {@link #resentEnd} send times are in PSN order, so the walk stops at the first
     * PSN sent after the reference.
     */
    private void judge(long now) {
        judgeDue = false;
        judgeAt = Long.MAX_VALUE;
        reports.trim(acked);
        if (reports.isEmpty()) {
            reports.reset(acked);
            return;
        }
        if (rackSentAt == Long.MIN_VALUE) return;
        long reorder = reorderWindow();
        long wait = rackRtt + reorder + ackDelayNanos;
        int first = reports.to;
        for (int p = reports.from; Psn.before(p, reports.to); p = Psn.add(p, 1)) {
            int i = p & mask;
            if (marked[i] != REPORTED) continue;
            long t = sentAt[i];
            boolean before = t < rackSentAt || (t == rackSentAt && Psn.before(p, rackPsn));
            if (before && (rackSentAt - t > reorder || now - t >= wait)) {
                mark(p, LossCause.SACK, now, true);
                continue;
            }
            if (first == reports.to) first = p;
            if (before) {
                judgeAt = Math.min(judgeAt, t + wait);
            } else if (!Psn.before(p, resentEnd)) {
                break; // every later PSN was sent after this one, and after the reference too
            }
        }
        if (first == reports.to) {
            reports.reset(acked);
        } else {
            reports.from = first;
        }
    }

    /** A quarter of the smoothed RTT (RACK's own samples before any timestamped one), within the bounds. */
    long reorderWindow() {
        long base = srtt > 0 ? srtt : minRtt == Long.MAX_VALUE ? 0 : minRtt;
        return Math.min(MAX_REORDER_NANOS, Math.max(MIN_REORDER_NANOS, base >> 2));
    }

    @Override
    public long nextCheck() {
        return judgeAt;
    }

    /** Starts at the QP's first PSN (RTS); a scoreboard never told starts at the first PSN it hears of. */
    @Override
    public void start(int firstPsn) {
        started = true;
        acked = sentEnd = resentEnd = firstPsn;
        scan.reset(firstPsn);
        reports.reset(firstPsn);
    }

    /** Marks {@code psn} for resending unless acknowledged, out of the window, or (unless forced) resent within ~1 RTT. */
    private void mark(int psn, LossCause cause, long now, boolean force) {
        if (Psn.before(psn, acked) || Psn.diff(psn, acked) >= window) return;
        int i = psn & mask;
        if (!force && resentOnce[i] && now - sentAt[i] < holdoff()) return;
        marked[i] = (byte) (cause.ordinal() + 1);
        scan.add(psn);
    }

    /**
     * How long a resent PSN is not resent again for a repeated NAK or READ gap: about a round trip (SRTT + 4 x its
     * variation, as TCP's RTO) plus the receiver's ACK delay, since a report may have been held that long before it
     * left. SACK reports need no such wait: RACK judges a resent PSN by its new send time.
     */
    private long holdoff() {
        return Math.max(MIN_HOLDOFF_NANOS, srtt + 4 * rttvar + ackDelayNanos);
    }

    @Override
    public int retransmit(Retransmitter requester, long now) {
        if (judgeDue || now >= judgeAt) judge(now);
        int sent = 0;
        if (scan.isEmpty()) return 0;
        scan.trim(acked);
        int p = scan.from;
        LossCause lastCause = null;
        while (Psn.before(p, scan.to) && sent < BURST) {
            int i = p & mask;
            byte m = marked[i];
            if (m > IDLE) {
                LossCause cause = CAUSES[m - 1];
                if (cause != lastCause) {
                    requester.resendReason(cause);
                    lastCause = cause;
                }
                if (!requester.resend(p, now)) break; // back-pressure: the rest stays marked for the next pass
                marked[i] = IDLE;
                resent++;
                sent++;
            }
            p = Psn.add(p, 1);
        }
        scan.from = p;
        if (scan.isEmpty()) scan.reset(acked);
        return sent;
    }

    @Override
    public boolean hasResends() {
        return !scan.isEmpty();
    }

    @Override
    public void onAcknowledged(int psn, long now) {
        if (!started) start(psn);
        if (!Psn.after(psn, acked)) return;
        // RACK hears of the newly acknowledged PSNs; the slots are cleared so they are clean when the PSNs come round
        for (int p = acked; Psn.before(p, psn) && Psn.diff(p, acked) < window; p = Psn.add(p, 1)) {
            int i = p & mask;
            heard(p, i, now);
            marked[i] = IDLE;
            sentAt[i] = Long.MIN_VALUE;
            resentOnce[i] = false;
        }
        acked = psn;
        scan.trim(acked);
        reports.trim(acked);
        if (Psn.before(sentEnd, acked)) sentEnd = acked;
        if (Psn.before(resentEnd, acked)) resentEnd = acked;
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
