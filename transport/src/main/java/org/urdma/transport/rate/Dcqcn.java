package org.urdma.transport.rate;

/**
 * DCQCN's reaction point (Zhu et al., SIGCOMM 2015), per QP, as HPCC's {@code rdma-hw.cc} ("Mellanox's version",
 * {@code cnp_received_mlx} ... {@code HyperIncreaseMlx}) implements it, plus the paper's byte counter (ns3-rdma's
 * {@code ByteCounter}). Option names are ns3-rdma's attributes.
 * <ul>
 * <li>A QP starts at the line rate and does nothing until its first CNP, which sets alpha = 1, the rate (and target
 *     rate) to {@code rateOnFirstCnp} × rate, and starts the alpha timer.</li>
 * <li>Alpha, every {@code alphaResumInterval}: alpha = (1 - g) alpha + g if a CNP came in the interval, else
 *     (1 - g) alpha.</li>
 * <li>Rate decrease, on a CNP, at most once per {@code rateDecreaseInterval} (HPCC checks every 4 µs; here a CNP is
 *     acted on at once when the last cut is that old, else when it becomes so): target = rate (unless
 *     {@code clampTargetRate} is false and no increase happened since the last cut), rate = max(minRate,
 *     rate × (1 - alpha / 2)); the increase stages and the byte counter restart.</li>
 * <li>Rate increase, on each {@code rpTimer} tick since the last cut and each {@code byteCounter} bytes sent: with t
 *     timer and b byte events before this one, fast recovery while max(t, b) &lt; F ({@code fastRecoveryTimes}):
 *     rate = (rate + target) / 2; hyper increase when min(t, b) &gt; F: target += rateHAI; otherwise additive
 *     increase: target += rateAI; then rate = (rate + target) / 2, target at most the line rate. With the byte counter
 *     off ({@code byteCounter=0}) b = t, which is HPCC's timer-only staging (F fast, one additive, then hyper).</li>
 * <li>Pacing by next-available time ({@link Pacer}): exact, and a rate change re-times the last packet.</li>
 * </ul>
 * Timers are not scheduled anywhere: each call first runs, in time order, the timer events due by {@code now}, so the
 * policy is a pure function of its inputs and the times they came at. Rates are payload bit/s. No allocation.
 */
public final class Dcqcn implements RateControl, CurrentRate {
    /**
     * DCQCN's parameters. Defaults: ns3-rdma/HPCC's ({@code MinRate} 100 Mbit/s, {@code RPTimer} 1500 µs,
     * {@code FastRecoveryTimes} 5, {@code AlphaResumInterval} 55 µs, {@code RateDecreaseInterval} 4 µs,
     * {@code RateAI} 5 Mbit/s, {@code RateHAI} 50 Mbit/s, {@code RateOnFirstCnp} 1.0, {@code ClampTargetRate}
     * false) except g = 1/256 and the byte counter of 10 MB, which are the paper's (ns3-rdma: 1/16 and 150 KB).
     */
    public record Config(long lineRateBps, long minRateBps, double g, double rateOnFirstCnp, boolean clampTargetRate,
                         long rpTimerNanos, int fastRecoveryTimes, long alphaResumeIntervalNanos,
                         long rateDecreaseIntervalNanos, long rateAiBps, long rateHaiBps, long byteCounter) {
        public Config {
            if (lineRateBps < 1) throw new IllegalArgumentException("cc: dcqcn line must be > 0 bit/s, was " + lineRateBps);
            if (minRateBps < 1 || minRateBps > lineRateBps) {
                throw new IllegalArgumentException("cc: dcqcn minRate must be 1 bit/s..line, was " + minRateBps);
            }
            if (!(g > 0 && g <= 1)) throw new IllegalArgumentException("cc: dcqcn g must be in (0, 1], was " + g);
            if (!(rateOnFirstCnp > 0 && rateOnFirstCnp <= 1)) {
                throw new IllegalArgumentException("cc: dcqcn rateOnFirstCnp must be in (0, 1], was " + rateOnFirstCnp);
            }
            if (rpTimerNanos < 1) throw new IllegalArgumentException("cc: dcqcn rpTimer must be > 0, was " + rpTimerNanos + " ns");
            if (fastRecoveryTimes < 0) {
                throw new IllegalArgumentException("cc: dcqcn fastRecoveryTimes must be >= 0, was " + fastRecoveryTimes);
            }
            if (alphaResumeIntervalNanos < 1) {
                throw new IllegalArgumentException("cc: dcqcn alphaResumInterval must be > 0, was " + alphaResumeIntervalNanos + " ns");
            }
            if (rateDecreaseIntervalNanos < 0) {
                throw new IllegalArgumentException("cc: dcqcn rateDecreaseInterval must be >= 0, was " + rateDecreaseIntervalNanos + " ns");
            }
            if (rateAiBps < 0) throw new IllegalArgumentException("cc: dcqcn rateAI must be >= 0, was " + rateAiBps);
            if (rateHaiBps < 0) throw new IllegalArgumentException("cc: dcqcn rateHAI must be >= 0, was " + rateHaiBps);
            if (byteCounter < 0) throw new IllegalArgumentException("cc: dcqcn byteCounter must be >= 0 (0: off), was " + byteCounter);
        }

        public static Config defaults(long lineRateBps) {
            return new Config(lineRateBps, Math.min(100_000_000L, lineRateBps), 1.0 / 256, 1.0, false, 1_500_000, 5,
                    55_000, 4_000, 5_000_000L, 50_000_000L, 10_000_000L);
        }

        /**
         * From {@code key=value,...}: line (rate, default 100g), minRate, g, rateOnFirstCnp, clampTargetRate,
         * rpTimer / alphaResumInterval / rateDecreaseInterval (µs, may be fractional), fastRecoveryTimes, rateAI,
         * rateHAI (rates like 5m), byteCounter (bytes, 0 = off).
         */
        public static Config parse(String options) {
            PolicySpec s = PolicySpec.parse("dcqcn", options);
            long line = s.rate("line", 100_000_000_000L);
            Config d = defaults(line);
            Config c = new Config(line, s.rate("minRate", d.minRateBps), s.number("g", d.g),
                    s.number("rateOnFirstCnp", d.rateOnFirstCnp), s.flag("clampTargetRate", d.clampTargetRate),
                    micros(s.number("rpTimer", d.rpTimerNanos / 1e3)),
                    (int) s.whole("fastRecoveryTimes", d.fastRecoveryTimes),
                    micros(s.number("alphaResumInterval", d.alphaResumeIntervalNanos / 1e3)),
                    micros(s.number("rateDecreaseInterval", d.rateDecreaseIntervalNanos / 1e3)),
                    s.rate("rateAI", d.rateAiBps), s.rate("rateHAI", d.rateHaiBps), s.whole("byteCounter", d.byteCounter));
            s.done();
            return c;
        }

        private static long micros(double us) {
            return Math.round(us * 1e3);
        }
    }

    private static final long NEVER = Long.MAX_VALUE;
    private final Config c;
    private final Pacer pacer;
    private long target;
    private double alpha = 1;
    private boolean cnpSeen;
    private boolean alphaCnpArrived;
    private boolean decreasePending;
    private long pendingSince;
    private long lastDecrease = Long.MIN_VALUE;
    private long nextAlpha = NEVER;
    private long nextIncrease = NEVER;
    private int timeStage;
    private int byteStage;
    private long bytesLeft;
    private long cnps;
    private long decreases;
    private long increases;

    public Dcqcn(Config config) {
        this.c = config;
        this.pacer = new Pacer(config.lineRateBps);
        this.target = config.lineRateBps;
    }

    static Factory factory(Config config) {
        return Factory.of("dcqcn", () -> new Dcqcn(config));
    }

    @Override
    public long nextSendTime(long now) {
        advance(now);
        return pacer.nextAvail();
    }

    @Override
    public void onSent(int payloadBytes, long now) {
        advance(now);
        pacer.sent(payloadBytes, now);
        if (c.byteCounter == 0 || nextIncrease == NEVER) return;
        bytesLeft -= payloadBytes;
        while (bytesLeft <= 0) {
            bytesLeft += c.byteCounter;
            increase();
            byteStage++;
        }
    }

    @Override
    public void onCongestion(CongestionSignal signal, long now) {
        if (signal != CongestionSignal.CNP) return;
        advance(now);
        cnps++;
        alphaCnpArrived = true;
        if (!decreasePending) pendingSince = now;
        decreasePending = true;
        if (!cnpSeen) {
            cnpSeen = true;
            alpha = 1;
            alphaCnpArrived = false;
            nextAlpha = now + c.alphaResumeIntervalNanos;
            target = Math.round(c.rateOnFirstCnp * pacer.rate());
            pacer.rate(Math.max(c.minRateBps, target));
        }
        advance(now);
    }

    /** Runs the timer events due by {@code now} in time order (alpha update before a decrease due at the same time). */
    private void advance(long now) {
        while (true) {
            long decreaseAt = decreasePending ? decreaseDue() : NEVER;
            long next = Math.min(nextAlpha, Math.min(nextIncrease, decreaseAt));
            if (next > now) return;
            if (nextAlpha == next) {
                updateAlpha(now, decreaseAt);
            } else if (decreaseAt == next) {
                decrease(next);
            } else {
                timerIncrease(now);
            }
        }
    }

    /** A pending cut is due when its CNP came, or one rateDecreaseInterval after the last cut if that is later. */
    private long decreaseDue() {
        if (lastDecrease == Long.MIN_VALUE) return pendingSince;
        return Math.max(pendingSince, lastDecrease + c.rateDecreaseIntervalNanos);
    }

    private void updateAlpha(long now, long decreaseAt) {
        alpha = alphaCnpArrived ? (1 - c.g) * alpha + c.g : (1 - c.g) * alpha;
        alphaCnpArrived = false;
        nextAlpha += c.alphaResumeIntervalNanos;
        // quiet periods up to the next event that reads alpha: all at once
        long until = Math.min(now, decreaseAt);
        if (nextAlpha <= until) {
            long k = (until - nextAlpha) / c.alphaResumeIntervalNanos + 1;
            alpha *= Math.pow(1 - c.g, k);
            nextAlpha += k * c.alphaResumeIntervalNanos;
        }
    }

    private void decrease(long at) {
        if (c.clampTargetRate || timeStage + byteStage > 0) target = pacer.rate();
        pacer.rate(Math.max(c.minRateBps, Math.round(pacer.rate() * (1 - alpha / 2))));
        timeStage = 0;
        byteStage = 0;
        bytesLeft = c.byteCounter;
        nextIncrease = at + c.rpTimerNanos;
        decreasePending = false;
        lastDecrease = at;
        decreases++;
    }

    private void timerIncrease(long now) {
        if (pacer.rate() == c.lineRateBps && target == c.lineRateBps && !decreasePending) {
            // at the line rate, ticks only count
            long k = (now - nextIncrease) / c.rpTimerNanos + 1;
            timeStage += (int) Math.min(k, Integer.MAX_VALUE - timeStage);
            nextIncrease += k * c.rpTimerNanos;
            return;
        }
        increase();
        if (timeStage < Integer.MAX_VALUE) timeStage++;
        nextIncrease += c.rpTimerNanos;
    }

    private void increase() {
        int t = timeStage;
        int b = c.byteCounter == 0 ? timeStage : byteStage;
        int f = c.fastRecoveryTimes;
        if (Math.max(t, b) >= f) {
            target = Math.min(c.lineRateBps, target + (Math.min(t, b) > f ? c.rateHaiBps : c.rateAiBps));
        }
        pacer.rate((pacer.rate() + target) / 2);
        increases++;
    }

    @Override
    public String name() {
        return "dcqcn";
    }

    @Override
    public long lineRateBps() {
        return c.lineRateBps;
    }

    /** Current sending rate, payload bit/s (after the timer events due by the last call). */
    @Override
    public long rateBps() {
        return pacer.rate();
    }

    public long targetRateBps() {
        return target;
    }

    public double alpha() {
        return alpha;
    }

    /** Rate increase events (fast recovery, additive, hyper) so far. */
    public long increases() {
        return increases;
    }

    public long decreases() {
        return decreases;
    }

    public long cnps() {
        return cnps;
    }

    public Config config() {
        return c;
    }
}
