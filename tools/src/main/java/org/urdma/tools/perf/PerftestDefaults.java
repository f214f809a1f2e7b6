package org.urdma.tools.perf;

/**
 * perftest's defaults per test (perftest_parameters.h, init_perftest_params and force_dependecies), so a run with no
 * -n, -t or -s matches a stock peer's: the two sides must agree on the count of every exchange.
 */
final class PerftestDefaults {
    /** DEF_ITERS_WB: ib_write_bw's iterations. */
    static final int ITERS_WRITE_BW = 5000;
    /** DEF_ITERS: every other test's iterations. */
    static final int ITERS = 1000;
    /** DEF_TX_BW and DEF_TX_LAT. */
    static final int TX_DEPTH_BW = 128;
    static final int TX_DEPTH_LAT = 1;
    /** DEF_SIZE_BW, DEF_SIZE_LAT and DEF_SIZE_ATOMIC. */
    static final int SIZE_BW = 65536;
    static final int SIZE_LAT = 2;
    static final int SIZE_ATOMIC = 8;

    private PerftestDefaults() {
    }

    static int iters(PerfTest t) {
        return t == PerfTest.WRITE_BW ? ITERS_WRITE_BW : ITERS;
    }

    /** The send queue's depth: a latency test has one request outstanding; a run by count has no more than its iterations. */
    static int txDepth(PerfTest t, long iters, boolean byDuration) {
        int depth = t.bandwidth() ? TX_DEPTH_BW : TX_DEPTH_LAT;
        return byDuration ? depth : (int) Math.min(depth, iters);
    }

    static int size(PerfTest t) {
        return t.atomic() ? SIZE_ATOMIC : t.bandwidth() ? SIZE_BW : SIZE_LAT;
    }

    /** Fills in what the command line left unset ({@code -n}, {@code -t}) with {@code t}'s defaults. */
    static void apply(PerfTest t, PerfOptions o) {
        if (o.iters <= 0) o.iters = iters(t);
        if (o.txDepth <= 0) o.txDepth = txDepth(t, o.iters, o.duration > 0);
    }
}
