package org.urdma.transport.rate;

import org.agrona.DirectBuffer;
import org.urdma.transport.wire.IntStack;
import org.urdma.transport.wire.Psn;

/**
 * HPCC (Li et al., SIGCOMM 2019): window and rate from in-band telemetry, as HPCC's {@code rdma-hw.cc} computes them
 * ({@code HandleAckHp}, {@code UpdateRateHp}, one rate for the path). Each ACK echoes the INT stack its request
 * collected ({@link IntStack}); against the stack the previous ACK echoed, each hop j gives
 * u_j = txBytes_j / (B_j τ_j) + min(qlen_j, qlen'_j) / (B_j T), its utilisation as a share of its rate B_j plus its
 * standing queue as a share of the bandwidth-delay product, over τ_j, the time between the two stamps. The most loaded
 * hop's u and τ feed an EWMA over the base RTT T: U = (U (T - τ) + u τ) / T, τ at most T. Then, with k = U / η:
 * <ul>
 * <li>k &gt;= 1 or {@code maxStage} additive steps in a row: R = R_c / k + R_AI (multiplicative decrease or increase
 *     towards η of the bottleneck), stage 0;</li>
 * <li>otherwise R = R_c + R_AI (additive increase), stage + 1;</li>
 * </ul>
 * clamped to minRate..line. The reference rate R_c and the stage move only once per round trip, on the first ACK of
 * data sent after the last such update (the ACK's PSN at or past the next PSN then); ACKs in between react from R_c
 * without moving it (HPCC's fast reaction). The window is the bandwidth-delay product scaled by R / line (HPCC's
 * {@code GetWin} with {@code VAR_WIN}); the QP is paced at R strictly ({@link Pacer#strict}). No allocation; takes {@code now}, reads no clock.
 */
public final class Hpcc implements RateControl, CurrentRate {
    /**
     * HPCC's parameters. Defaults: η = 0.95 and maxStage = 5 (the paper's), base RTT T = 13 µs (HPCC's fat tree),
     * W_AI = W_init (1 - η) / N with W_init the bandwidth-delay product and N = 100 concurrent flows (the paper's rule;
     * 81 bytes at 100 Gbit/s and 13 µs), as a rate R_AI = W_AI / T; minRate 100 Mbit/s (at most the line).
     */
    public record Config(long lineRateBps, long minRateBps, long baseRttNanos, double eta, int maxStage, long rateAiBps) {
        public Config {
            if (lineRateBps < 1) throw new IllegalArgumentException("cc: hpcc line must be > 0 bit/s, was " + lineRateBps);
            if (minRateBps < 1 || minRateBps > lineRateBps) {
                throw new IllegalArgumentException("cc: hpcc minRate must be 1 bit/s..line, was " + minRateBps);
            }
            if (baseRttNanos < 1) throw new IllegalArgumentException("cc: hpcc rtt must be > 0, was " + baseRttNanos + " ns");
            if (!(eta > 0 && eta <= 1)) throw new IllegalArgumentException("cc: hpcc eta must be in (0, 1], was " + eta);
            if (maxStage < 0) throw new IllegalArgumentException("cc: hpcc maxStage must be >= 0, was " + maxStage);
            if (rateAiBps < 0) throw new IllegalArgumentException("cc: hpcc rateAI must be >= 0, was " + rateAiBps);
        }

        /** Concurrent flows the default W_AI is sized for (the paper's N). */
        public static final int FLOWS = 100;

        public static Config defaults(long lineRateBps, long baseRttNanos) {
            double eta = 0.95;
            double bdp = lineRateBps / 8.0 * baseRttNanos * 1e-9;
            double wai = bdp * (1 - eta) / FLOWS;
            long rateAi = Math.round(wai * 8 / (baseRttNanos * 1e-9));
            return new Config(lineRateBps, Math.min(100_000_000L, lineRateBps), baseRttNanos, eta, 5, rateAi);
        }

        /**
         * From {@code key=value,...}: line (rate, default 100g), rtt (base RTT, µs, default 13), eta, maxStage,
         * wai (W_AI in bytes) or rateAI (a rate like 50m), minRate.
         */
        public static Config parse(String options) {
            PolicySpec s = PolicySpec.parse("hpcc", options);
            long line = s.rate("line", 100_000_000_000L);
            long rtt = Math.round(s.number("rtt", 13) * 1e3);
            if (rtt < 1) throw new IllegalArgumentException("cc: hpcc rtt must be > 0 µs, was " + rtt + " ns");
            Config d = defaults(line, rtt);
            double eta = s.number("eta", d.eta);
            double wai = s.number("wai", -1);
            long rateAi = s.rate("rateAI", wai >= 0 ? Math.round(wai * 8 / (rtt * 1e-9)) : defaults(line, rtt).rateAiBps);
            Config c = new Config(line, s.rate("minRate", d.minRateBps), rtt, eta, (int) s.whole("maxStage", d.maxStage), rateAi);
            s.done();
            return c;
        }

        /** The bandwidth-delay product line × T, bytes. */
        public long bdpBytes() {
            return Math.max(1, Math.round(lineRateBps / 8.0 * baseRttNanos * 1e-9));
        }
    }

    private final Config c;
    private final Pacer pacer;
    private final long[] hops = new long[IntStack.MAX_HOPS];
    private int hopCount;
    private boolean started;
    private int lastUpdatePsn;
    private long referenceRate;
    private int incStage;
    private double u;
    private long updates;
    private long fastReactions;

    public Hpcc(Config config) {
        this.c = config;
        this.pacer = Pacer.strict(config.lineRateBps);
        this.referenceRate = config.lineRateBps;
    }

    static Factory factory(Config config) {
        return Factory.of("hpcc", () -> new Hpcc(config));
    }

    @Override
    public long nextSendTime(long now) {
        return pacer.nextAvail();
    }

    @Override
    public void onSent(int payloadBytes, long now) {
        pacer.sent(payloadBytes, now);
    }

    @Override
    public boolean wantsTelemetry() {
        return true;
    }

    /** Every packet's telemetry comes back, as HPCC's NIC acknowledges each one. */
    @Override
    public int ackEvery() {
        return 1;
    }

    @Override
    public void onTelemetry(DirectBuffer stack, int offset, int ackPsn, int nextPsn, long now) {
        int n = IntStack.hops(stack, offset);
        if (!started) {
            started = true;
            lastUpdatePsn = nextPsn;
            keep(stack, offset, n);
            return;
        }
        boolean fullRound = !Psn.before(ackPsn, lastUpdatePsn);
        if (n == hopCount && measure(stack, offset, n)) {
            react(fullRound);
        }
        keep(stack, offset, n);
        if (fullRound) lastUpdatePsn = nextPsn;
    }

    /** Folds the most loaded hop into the EWMA U; false when no hop has news (no time passed, unknown rates). */
    private boolean measure(DirectBuffer stack, int offset, int n) {
        double max = 0;
        long dt = 0;
        boolean any = false;
        for (int i = 0; i < n; i++) {
            long now = IntStack.hopWord(stack, offset, i);
            long before = hops[i];
            long rate = IntStack.rateBps(now);
            long tau = IntStack.nanosBetween(before, now);
            if (rate == 0 || tau == 0) continue;
            double txRate = IntStack.bytesBetween(before, now) * 8.0 / (tau * 1e-9);
            double queue = Math.min(IntStack.queueBytes(now), IntStack.queueBytes(before));
            double hopU = txRate / rate + queue * 8.0 / (rate * (c.baseRttNanos * 1e-9));
            any = true;
            if (hopU > max) {
                max = hopU;
                dt = tau;
            }
        }
        if (!any) return false;
        dt = Math.min(dt, c.baseRttNanos);
        u = (u * (c.baseRttNanos - dt) + max * dt) / c.baseRttNanos;
        return true;
    }

    private void react(boolean fullRound) {
        double k = u / c.eta;
        long rate;
        int stage;
        if (k >= 1 || incStage >= c.maxStage) {
            rate = Math.round(referenceRate / k) + c.rateAiBps;
            stage = 0;
        } else {
            rate = referenceRate + c.rateAiBps;
            stage = incStage + 1;
        }
        rate = Math.max(c.minRateBps, Math.min(c.lineRateBps, rate));
        pacer.rate(rate);
        if (fullRound) {
            referenceRate = rate;
            incStage = stage;
            updates++;
        } else {
            fastReactions++;
        }
    }

    private void keep(DirectBuffer stack, int offset, int n) {
        for (int i = 0; i < n; i++) hops[i] = IntStack.hopWord(stack, offset, i);
        hopCount = n;
    }

    @Override
    public long windowBytes() {
        // HPCC's GetWin with VAR_WIN: the BDP scaled by the current rate
        return Math.max(1, (long) ((double) c.bdpBytes() * pacer.rate() / c.lineRateBps));
    }

    @Override
    public String name() {
        return "hpcc";
    }

    @Override
    public long rateBps() {
        return pacer.rate();
    }

    @Override
    public long lineRateBps() {
        return c.lineRateBps;
    }

    /** The EWMA of the bottleneck's normalised load U (1 = its rate exactly, queue empty). */
    public double utilisation() {
        return u;
    }

    /** The reference rate R_c, moved once per round trip. */
    public long referenceRateBps() {
        return referenceRate;
    }

    public int incStage() {
        return incStage;
    }

    /** Once-per-round-trip updates of the reference rate so far. */
    public long updates() {
        return updates;
    }

    /** ACKs that reacted from the reference rate without moving it. */
    public long fastReactions() {
        return fastReactions;
    }

    public Config config() {
        return c;
    }
}
