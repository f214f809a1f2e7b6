package org.urdma.tools.perf;

/**
 * perftest's BW peak (print_report_bw in perftest_resources.c): the time of each post (every post-list-th request,
 * counted over all QPs) and of each completion (the count of completed requests over all QPs, as cq_mod steps it);
 * the peak is the message size over the least time per message of any stretch from a post to a later completion,
 * (tcompleted[j] - tposted[i]) / (j - i + 1). Arrays sized before the run: no allocation while it runs.
 */
final class PerftestPeak {
    /** Above this many (post, completion) pairs the posts are sampled more sparsely, so the report stays quick. */
    static final long MAX_PAIRS = 400_000_000L;
    /** perftest measures no peak (noPeak, reported as 0) for a run of more iterations per QP than this. */
    static final long MAX_ITERS = 20_000;

    private final long[] posted;
    private final long[] completed;
    private final int postList;
    private final int cqMod;

    /** For {@code iters} requests on each of {@code qps} QPs; null (no peak) when perftest would not time them. */
    static PerftestPeak forRun(long iters, int qps, int postList, int cqMod) {
        return iters > MAX_ITERS ? null : new PerftestPeak((int) (iters * qps), postList, cqMod);
    }

    PerftestPeak(int messages, int postList, int cqMod) {
        this.posted = new long[messages];
        this.completed = new long[messages];
        this.postList = Math.max(1, postList);
        this.cqMod = Math.max(1, cqMod);
    }

    /** Request {@code index} (over all QPs, from 0) is posted at {@code now}. */
    void posted(long index, long now) {
        if (index < posted.length) posted[(int) index] = now;
    }

    /** {@code total} requests (over all QPs) have completed at {@code now}. */
    void completed(long total, long now) {
        if (total > 0) completed[(int) Math.min(total, completed.length) - 1] = now;
    }

    /** The peak in bytes per second for {@code size}-byte messages, or 0 when no stretch was timed. */
    double bytesPerSecond(int size) {
        int n = posted.length;
        if (n == 0) return 0;
        long columns = (n + cqMod - 1) / cqMod + 1;
        long rows = (n + postList - 1) / postList;
        int step = postList * (int) Math.max(1, (rows * columns + MAX_PAIRS - 1) / MAX_PAIRS);
        double best = Double.MAX_VALUE;
        for (int i = 0; i < n; i += step) {
            long tp = posted[i];
            for (int j = (int) roundUp(i + 1, cqMod) - 1; j < n; j += cqMod) best = min(best, tp, j, i);
            if (n % cqMod != 0) best = min(best, tp, n - 1, i); // the last request is signaled on its own
        }
        return best == Double.MAX_VALUE ? 0 : size * 1e9 / best;
    }

    private double min(double best, long tp, int j, int i) {
        long tc = completed[j];
        if (tc == 0 || tc - tp <= 0) return best; // not a completion the run recorded
        return Math.min(best, (double) (tc - tp) / (j - i + 1));
    }

    private static long roundUp(long v, long unit) {
        return (v + unit - 1) / unit * unit;
    }
}
