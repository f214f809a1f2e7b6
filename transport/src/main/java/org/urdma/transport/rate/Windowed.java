package org.urdma.transport.rate;

import java.util.StringJoiner;

/**
 * HPCC's windowed variant of a rate-based policy ({@code dcqcn+w}, {@code dctcp+w}, {@code timely+w}): besides the
 * pace, at most a window of payload bytes may be unacknowledged. The window is the path's bandwidth-delay product
 * (HPCC's {@code third.cc}: line rate × base RTT, {@code HAS_WIN 1}), scaled by the current rate over the line rate
 * when {@code vwin} is on ({@code RdmaQueuePair::GetWin} with {@code VAR_WIN 1}, as every windowed run of HPCC's
 * {@code run.py}), so a QP the policy slowed also holds fewer bytes in the fabric.
 * <p>Options, beside the policy's own: {@code rtt} (base RTT in µs, default 13, the fat tree's RTT that {@code run.py}
 * names), {@code win} (the window in bytes; overrides line × rtt), {@code vwin} (true/false, default true).
 */
final class Windowed implements RateControl {
    /** The base RTT of HPCC's fat tree ({@code run.py}: "RTT=13us"), µs. */
    static final double DEFAULT_RTT_MICROS = 13;
    private final RateControl inner;
    private final CurrentRate rate;
    private final long windowBytes;
    private final boolean variable;
    private final String name;

    private <T extends RateControl & CurrentRate> Windowed(T inner, long windowBytes, boolean variable, String name) {
        this.inner = inner;
        this.rate = inner;
        this.windowBytes = windowBytes;
        this.variable = variable;
        this.name = name;
    }

    /** {@code base+w} with {@code options}: the window's keys taken out, the rest the policy's. */
    static Factory named(String base, String options) {
        StringJoiner rest = new StringJoiner(",");
        String rtt = null;
        String win = null;
        String vwin = null;
        if (!options.isBlank()) {
            for (String part : options.split(",")) {
                String key = part.contains("=") ? part.substring(0, part.indexOf('=')).trim() : part.trim();
                String value = part.contains("=") ? part.substring(part.indexOf('=') + 1).trim() : "";
                switch (key) {
                    case "rtt" -> rtt = value;
                    case "win" -> win = value;
                    case "vwin" -> vwin = value;
                    default -> rest.add(part);
                }
            }
        }
        PolicySpec w = PolicySpec.parse(base + "+w", (rtt == null ? "" : "rtt=" + rtt + ",") + (win == null ? "" : "win=" + win + ",")
                + (vwin == null ? "" : "vwin=" + vwin));
        double rttMicros = w.number("rtt", DEFAULT_RTT_MICROS);
        long winBytes = w.whole("win", 0);
        boolean variable = w.flag("vwin", true);
        w.done();
        if (!(rttMicros > 0)) throw new IllegalArgumentException("cc: " + base + "+w rtt must be > 0 µs, was " + rttMicros);
        if (win != null && winBytes < 1) throw new IllegalArgumentException("cc: " + base + "+w win must be >= 1 byte, was " + winBytes);
        String name = base + "+w";
        switch (base) {
            case "dcqcn" -> {
                Dcqcn.Config c = Dcqcn.Config.parse(rest.toString());
                long bytes = window(winBytes, c.lineRateBps(), rttMicros);
                return Factory.of(name, () -> new Windowed(new Dcqcn(c), bytes, variable, name));
            }
            case "dctcp" -> {
                Dctcp.Config c = Dctcp.Config.parse(rest.toString());
                long bytes = window(winBytes, c.lineRateBps(), rttMicros);
                return Factory.of(name, () -> new Windowed(new Dctcp(c), bytes, variable, name));
            }
            case "timely" -> {
                Timely.Config c = Timely.Config.parse(rest.toString());
                long bytes = window(winBytes, c.lineRateBps(), rttMicros);
                return Factory.of(name, () -> new Windowed(new Timely(c), bytes, variable, name));
            }
            default -> throw new IllegalArgumentException("cc: '" + base + "+w' has no windowed variant, expected dcqcn+w, dctcp+w or timely+w");
        }
    }

    /** {@code win} when given, else the bandwidth-delay product line × rtt. */
    static long window(long winBytes, long lineRateBps, double rttMicros) {
        if (winBytes > 0) return winBytes;
        return Math.max(1, Math.round(lineRateBps / 8.0 * rttMicros * 1e-6));
    }

    @Override
    public long windowBytes() {
        if (!variable) return windowBytes;
        // HPCC's GetWin: m_win × m_rate / m_max_rate, at least 1
        return Math.max(1, (long) ((double) windowBytes * rate.rateBps() / rate.lineRateBps()));
    }

    @Override
    public boolean wantsRtt() {
        return inner.wantsRtt();
    }

    @Override
    public long nextSendTime(long now) {
        return inner.nextSendTime(now);
    }

    @Override
    public void onSent(int payloadBytes, long now) {
        inner.onSent(payloadBytes, now);
    }

    @Override
    public void onAck(long rttNanos, long now) {
        inner.onAck(rttNanos, now);
    }

    @Override
    public void onAck(long ackedBytes, long rttNanos, long now) {
        inner.onAck(ackedBytes, rttNanos, now);
    }

    @Override
    public void onLossRate(double fraction, long now) {
        inner.onLossRate(fraction, now);
    }

    @Override
    public void onOneWayDelay(long forwardNanos, long reverseNanos, long now) {
        inner.onOneWayDelay(forwardNanos, reverseNanos, now);
    }

    @Override
    public void onLinkHeld(long now) {
        inner.onLinkHeld(now);
    }

    @Override
    public void onCongestion(CongestionSignal signal, long now) {
        inner.onCongestion(signal, now);
    }

    /** The policy this window wraps. */
    RateControl inner() {
        return inner;
    }

    @Override
    public String name() {
        return name;
    }
}
