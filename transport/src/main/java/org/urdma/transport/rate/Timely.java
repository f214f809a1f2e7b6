package org.urdma.transport.rate;

/**
 * TIMELY (Mittal et al., SIGCOMM 2015), RTT-gradient rate control, as HPCC's {@code rdma-hw.cc} has it
 * ({@code UpdateRateTimely}, {@code CC_MODE 7}); option names and defaults are its attributes and {@code run.py}'s.
 * Once per round trip (the first RTT sample of a packet sent after the last update; rdma-hw.cc: an ACK past the
 * sequence sent at the last update), from the new sample rtt and the one of the last update:
 * <ul>
 * <li>rttDiff = (1 - alpha) rttDiff + alpha (rtt - lastRtt); gradient = rttDiff / minRtt.</li>
 * <li>rtt &lt; tLow: increase. rtt &gt; tHigh: rate × (1 - beta (1 - tHigh / rtt)). Otherwise gradient &lt;= 0:
 *     increase; gradient &gt; 0: rate × max(0, 1 - beta × gradient). A decrease is floored at minRate.</li>
 * <li>An increase adds {@code rateAI}, or {@code rateHAI} once 5 increases came in a row (hyper-active increase, HAI
 *     mode; a decrease resets the count), up to the line rate.</li>
 * </ul>
 * The first sample only sets lastRtt. Pacing by next-available time ({@link Pacer}). No allocation; takes
 * {@code now}, reads no clock.
 */
public final class Timely implements RateControl, CurrentRate {
    /** Increases in a row after which TIMELY adds rateHAI instead of rateAI (rdma-hw.cc: {@code m_incStage < 5}). */
    public static final int HAI_AFTER = 5;

    /**
     * TIMELY's parameters. Defaults: rdma-hw.cc's ({@code TimelyAlpha} 0.875, {@code TimelyBeta} 0.8,
     * {@code TimelyTLow} 50 µs, {@code TimelyTHigh} 500 µs, {@code TimelyMinRtt} 20 µs) and {@code run.py}'s for
     * {@code timely}: rateAI = line / 1000 and rateHAI = line / 200 (10 × bw / 10 and 50 × bw / 10 Mbit/s for bw in
     * Gbit/s: 100 and 500 Mbit/s at 100 Gbit/s), {@code MIN_RATE} 1000 Mbit/s (at most the line).
     */
    public record Config(long lineRateBps, long minRateBps, double alpha, double beta, long tLowNanos, long tHighNanos,
                         long minRttNanos, long rateAiBps, long rateHaiBps) {
        public Config {
            if (lineRateBps < 1) throw new IllegalArgumentException("cc: timely line must be > 0 bit/s, was " + lineRateBps);
            if (minRateBps < 1 || minRateBps > lineRateBps) {
                throw new IllegalArgumentException("cc: timely minRate must be 1 bit/s..line, was " + minRateBps);
            }
            if (!(alpha > 0 && alpha <= 1)) throw new IllegalArgumentException("cc: timely alpha must be in (0, 1], was " + alpha);
            if (!(beta > 0 && beta <= 1)) throw new IllegalArgumentException("cc: timely beta must be in (0, 1], was " + beta);
            if (tLowNanos < 0 || tHighNanos <= tLowNanos) {
                throw new IllegalArgumentException("cc: timely tHigh must be above tLow >= 0, was " + tLowNanos + ".." + tHighNanos + " ns");
            }
            if (minRttNanos < 1) throw new IllegalArgumentException("cc: timely minRtt must be > 0, was " + minRttNanos + " ns");
            if (rateAiBps < 0) throw new IllegalArgumentException("cc: timely rateAI must be >= 0, was " + rateAiBps);
            if (rateHaiBps < 0) throw new IllegalArgumentException("cc: timely rateHAI must be >= 0, was " + rateHaiBps);
        }

        public static Config defaults(long lineRateBps) {
            return new Config(lineRateBps, Math.min(1_000_000_000L, lineRateBps), 0.875, 0.8, 50_000, 500_000, 20_000,
                    lineRateBps / 1000, lineRateBps / 200);
        }

        /**
         * From {@code key=value,...}: line (rate, default 100g), minRate, alpha, beta, tLow / tHigh / minRtt (µs, may be
         * fractional), rateAI, rateHAI (rates like 100m).
         */
        public static Config parse(String options) {
            PolicySpec s = PolicySpec.parse("timely", options);
            long line = s.rate("line", 100_000_000_000L);
            Config d = defaults(line);
            Config c = new Config(line, s.rate("minRate", d.minRateBps), s.number("alpha", d.alpha), s.number("beta", d.beta),
                    micros(s.number("tLow", d.tLowNanos / 1e3)), micros(s.number("tHigh", d.tHighNanos / 1e3)),
                    micros(s.number("minRtt", d.minRttNanos / 1e3)), s.rate("rateAI", d.rateAiBps), s.rate("rateHAI", d.rateHaiBps));
            s.done();
            return c;
        }

        private static long micros(double us) {
            return Math.round(us * 1e3);
        }
    }

    private final Config c;
    private final Pacer pacer;
    private boolean started;
    private long lastUpdate;
    private long lastRtt;
    private double rttDiff;
    private int incStage;
    private long increases;
    private long decreases;

    public Timely(Config config) {
        this.c = config;
        this.pacer = new Pacer(config.lineRateBps);
    }

    static Factory factory(Config config) {
        return Factory.of("timely", () -> new Timely(config));
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
    public void onAck(long rttNanos, long now) {
        if (rttNanos < 0) return;
        if (!started) {
            started = true;
        } else if (now - rttNanos >= lastUpdate) {
            update(rttNanos);
        } else {
            return; // rdma-hw.cc's FastReactTimely does nothing
        }
        lastUpdate = now;
        lastRtt = rttNanos;
    }

    private void update(long rtt) {
        rttDiff = (1 - c.alpha) * rttDiff + c.alpha * (rtt - lastRtt);
        double gradient = rttDiff / c.minRttNanos;
        if (rtt < c.tLowNanos) {
            increase();
        } else if (rtt > c.tHighNanos) {
            decrease(1 - c.beta * (1 - (double) c.tHighNanos / rtt));
        } else if (gradient <= 0) {
            increase();
        } else {
            decrease(Math.max(0, 1 - c.beta * gradient));
        }
    }

    private void increase() {
        long step = incStage < HAI_AFTER ? c.rateAiBps : c.rateHaiBps;
        pacer.rate(Math.min(c.lineRateBps, pacer.rate() + step));
        incStage++;
        increases++;
    }

    private void decrease(double factor) {
        pacer.rate(Math.max(c.minRateBps, Math.round(pacer.rate() * factor)));
        incStage = 0;
        decreases++;
    }

    @Override
    public String name() {
        return "timely";
    }

    @Override
    public boolean wantsRtt() {
        return true;
    }

    @Override
    public long rateBps() {
        return pacer.rate();
    }

    @Override
    public long lineRateBps() {
        return c.lineRateBps;
    }

    /** The gradient's EWMA of RTT differences, ns. */
    public double rttDiffNanos() {
        return rttDiff;
    }

    /** Increases in a row so far (HAI from {@link #HAI_AFTER}). */
    public int incStage() {
        return incStage;
    }

    public long increases() {
        return increases;
    }

    public long decreases() {
        return decreases;
    }

    public Config config() {
        return c;
    }
}
