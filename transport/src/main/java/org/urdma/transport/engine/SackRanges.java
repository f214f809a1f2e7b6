package org.urdma.transport.engine;

import org.urdma.transport.wire.Psn;
import org.urdma.transport.wire.SackEth;

/**
 * The ranges a WAN responder's SACK-ETH lists: the PSNs still missing between the in-order point and the highest PSN
 * placed, at most {@link SackEth#MAX_RANGES} per SACK, rotating through the gaps when there are more; with P-FEC, gaps
 * whose group's parity may still repair them are held back until the flow goes quiet.
 */
final class SackRanges {
    /** P-FEC: a flow silent this long has no parity coming for its last group; the SACK then lists every gap. */
    static final long FEC_QUIET_NANOS = 200_000;
    /** P-FEC: a gap this far behind the highest PSN is listed even without its group's parity (groups are <= 255). */
    static final int FEC_HOLD_PSNS = 512;
    /**
     * Where the next SACK's ranges start when the last one was full: SACKs rotate through the gaps, so a window with
     * more gaps than one SACK-ETH holds has every gap reported within a few SACKs, not only the first MAX_RANGES.
     */
    private int sackResume;
    final int[] rangeStart = new int[SackEth.MAX_RANGES];
    final int[] rangeLength = new int[SackEth.MAX_RANGES];
    /** P-FEC: when the last request arrived, and whether the next SACK lists gaps FEC might still repair (the flow went quiet). */
    private long lastArrival;
    private boolean reportAll;

    void start(int psn) {
        sackResume = psn;
    }

    void onArrival(long now) {
        lastArrival = now;
    }

    /** The SACK timer fired: a flow quiet for {@link #FEC_QUIET_NANOS} has its next SACK list every gap. */
    void onTimer(FecReceiver fecRx, long now) {
        if (fecRx != null && now - lastArrival >= FEC_QUIET_NANOS) reportAll = true;
    }

    /** The last SACK was full and stopped inside the window at or past {@code ePsn}: more gaps wait to be reported. */
    boolean resumesPast(int ePsn) {
        return sackResume != ePsn;
    }

    /**
     * The missing PSN ranges between ePsn (or where the last full SACK stopped) and the highest placed, into
     * rangeStart/rangeLength; returns how many.
     */
    int missingRanges(int ePsn, int rcvHigh, PsnWindow win, FecReceiver fecRx) {
        int n = 0;
        int high = rcvHigh;
        // P-FEC: gaps in groups whose parity has not come yet may be rebuilt; list them only once the flow is quiet
        if (fecRx != null && !reportAll && Psn.before(fecRx.settledEnd(), high)) {
            // but never more than two largest groups back: a group cut short (a READ's PSN jump) never sends parity
            int settled = fecRx.settledEnd();
            int bound = Psn.add(high, -FEC_HOLD_PSNS);
            high = Psn.after(bound, settled) ? bound : settled;
        }
        reportAll = false;
        int p = Psn.after(sackResume, ePsn) && Psn.before(sackResume, high) ? sackResume : ePsn;
        while (n < rangeStart.length && Psn.before(p, high)) {
            int limit = Psn.diff(high, p);
            int present = win.next(p, true, limit);
            if (present == p) {
                p = win.next(p, false, limit);
                continue;
            }
            int len = Psn.diff(present, p);
            while (len > 0 && n < rangeStart.length) {
                int l = Math.min(255, len);
                rangeStart[n] = p;
                rangeLength[n] = l;
                n++;
                p = Psn.add(p, l);
                len -= l;
            }
            if (len > 0) break; // full inside a long gap: the next SACK resumes at p
            p = present;
        }
        sackResume = n == rangeStart.length ? p : ePsn;
        return n;
    }
}
