package org.urdma.transport.rate;

/**
 * DCTCP (Alizadeh et al., SIGCOMM 2010) as a NIC runs it, rate-based, the way HPCC's {@code rdma-hw.cc} has it
 * ({@code HandleAckDctcp}, {@code CC_MODE 8}); option names and defaults are its attributes and {@code run.py}'s.
 * <ul>
 * <li>Windows of one round trip: a window ends with the first RTT sample of a packet sent after it began (rdma-hw.cc:
 *     an ACK past the sequence sent at the last update). Then alpha = (1 - g) alpha + g F, with F the fraction of the
 *     window's packets that were marked: CNPs heard over packets sent in it, at most 1. Alpha starts at 1.</li>
 * <li>A CNP outside congestion-window-reduced (CWR) state cuts the rate to max(minRate, rate × (1 - alpha / 2)) and
 *     enters CWR for one round trip (rdma-hw.cc: until an ACK passes what was sent at the cut; here until one last
 *     sampled RTT has passed since the cut).</li>
 * <li>Each window that ends outside CWR adds {@code rateAI} (additive increase), up to the line rate.</li>
 * </ul>
 * F counts CNPs, so the receiver should answer every CE-marked packet (a device's CNP interval 0, the ECN-Echo of
 * every ACK in rdma-hw.cc); with DCQCN's 50 µs the fraction is at most one per 50 µs over the window's packets.
 * Pacing by next-available time ({@link Pacer}). No allocation; takes {@code now}, reads no clock.
 */
public final class Dctcp implements RateControl, CurrentRate {
    /**
     * DCTCP's parameters. Defaults: {@code run.py}'s for {@code dctcp}: g = 1/16 ({@code EWMA_GAIN 0.0625}),
     * {@code DCTCP_RATE_AI} 615 Mbit/s ("one MTU per RTT" at 1 KB and 13 µs), {@code MIN_RATE} 1000 Mbit/s (at most
     * the line).
     */
    public record Config(long lineRateBps, long minRateBps, double g, long rateAiBps) {
        public Config {
            if (lineRateBps < 1) throw new IllegalArgumentException("cc: dctcp line must be > 0 bit/s, was " + lineRateBps);
            if (minRateBps < 1 || minRateBps > lineRateBps) {
                throw new IllegalArgumentException("cc: dctcp minRate must be 1 bit/s..line, was " + minRateBps);
            }
            if (!(g > 0 && g <= 1)) throw new IllegalArgumentException("cc: dctcp g must be in (0, 1], was " + g);
            if (rateAiBps < 0) throw new IllegalArgumentException("cc: dctcp rateAI must be >= 0, was " + rateAiBps);
        }

        public static Config defaults(long lineRateBps) {
            return new Config(lineRateBps, Math.min(1_000_000_000L, lineRateBps), 1.0 / 16, 615_000_000L);
        }

        /** From {@code key=value,...}: line (rate, default 100g), minRate, g, rateAI (rates like 615m). */
        public static Config parse(String options) {
            PolicySpec s = PolicySpec.parse("dctcp", options);
            long line = s.rate("line", 100_000_000_000L);
            Config d = defaults(line);
            Config c = new Config(line, s.rate("minRate", d.minRateBps), s.number("g", d.g), s.rate("rateAI", d.rateAiBps));
            s.done();
            return c;
        }
    }

    private final Config c;
    private final Pacer pacer;
    private double alpha = 1;
    private boolean started;
    private long windowStart;
    private long sentInWindow;
    private long marksInWindow;
    private boolean cwr;
    private long cwrSince;
    private long lastRtt = -1;
    private long cuts;
    private long windows;

    public Dctcp(Config config) {
        this.c = config;
        this.pacer = new Pacer(config.lineRateBps);
    }

    static Factory factory(Config config) {
        return Factory.of("dctcp", () -> new Dctcp(config));
    }

    @Override
    public long nextSendTime(long now) {
        return pacer.nextAvail();
    }

    @Override
    public void onSent(int payloadBytes, long now) {
        pacer.sent(payloadBytes, now);
        sentInWindow++;
    }

    @Override
    public void onAck(long rttNanos, long now) {
        if (rttNanos >= 0) lastRtt = rttNanos;
        boolean windowEnds = rttNanos >= 0 && endsWindow(rttNanos, now);
        if (windowEnds) updateAlpha(now);
        if (cwr && lastRtt >= 0 && now - cwrSince >= lastRtt) cwr = false;
        if (windowEnds && !cwr) pacer.rate(Math.min(c.lineRateBps, pacer.rate() + c.rateAiBps));
    }

    /** The sample's packet left at or after the window began: the window's feedback is all in. */
    private boolean endsWindow(long rttNanos, long now) {
        if (!started) {
            started = true;
            windowStart = now;
            sentInWindow = 0;
            return false;
        }
        return now - rttNanos >= windowStart;
    }

    private void updateAlpha(long now) {
        double f = Math.min(1.0, (double) marksInWindow / Math.max(1, sentInWindow));
        alpha = (1 - c.g) * alpha + c.g * f;
        marksInWindow = 0;
        sentInWindow = 0;
        windowStart = now;
        windows++;
    }

    @Override
    public void onCongestion(CongestionSignal signal, long now) {
        if (signal != CongestionSignal.CNP) return;
        marksInWindow++;
        if (cwr) return;
        pacer.rate(Math.max(c.minRateBps, Math.round(pacer.rate() * (1 - alpha / 2))));
        cwr = true;
        cwrSince = now;
        cuts++;
    }

    @Override
    public String name() {
        return "dctcp";
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

    public double alpha() {
        return alpha;
    }

    /** Rate cuts so far (at most one per round trip). */
    public long cuts() {
        return cuts;
    }

    /** Windows (alpha updates) so far. */
    public long windows() {
        return windows;
    }

    public boolean inCwr() {
        return cwr;
    }

    public Config config() {
        return c;
    }
}
