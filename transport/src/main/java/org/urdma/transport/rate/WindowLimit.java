package org.urdma.transport.rate;

/**
 * PAXI's per-QP rate limit (seed 004, WIRE.md §9): at most {@code length_thr} payload bytes in each {@code CC_WINDOW}
 * (4.096-65.536 µs). Windows follow one another from the first packet. A packet may start while the window has budget
 * left, so it can overshoot; the overshoot is owed to the next window, which keeps the long-run rate at exactly
 * length_thr / CC_WINDOW. Unused budget is not saved up: an idle QP starts again with one window's worth.
 */
public final class WindowLimit implements RateControl {
    public static final long MIN_WINDOW_NANOS = 4_096;
    public static final long MAX_WINDOW_NANOS = 65_536;
    private final long lengthThr;
    private final long window;
    private long windowStart = Long.MIN_VALUE;
    private long used;

    WindowLimit(long lengthThr, long window) {
        this.lengthThr = lengthThr;
        this.window = window;
    }

    static Factory factory(long lengthThr, long ccWindowNanos) {
        if (lengthThr < 1) throw new IllegalArgumentException("length_thr: must be >= 1 byte, was " + lengthThr);
        if (ccWindowNanos < MIN_WINDOW_NANOS || ccWindowNanos > MAX_WINDOW_NANOS) {
            throw new IllegalArgumentException("CC_WINDOW: must be " + MIN_WINDOW_NANOS + ".." + MAX_WINDOW_NANOS + " ns, was " + ccWindowNanos);
        }
        return Factory.of("window:" + lengthThr + "/" + ccWindowNanos, () -> new WindowLimit(lengthThr, ccWindowNanos));
    }

    /** Moves to the window holding {@code now}; each window passed pays length_thr of the debt. */
    private void roll(long now) {
        if (windowStart == Long.MIN_VALUE) {
            windowStart = now;
            return;
        }
        long passed = (now - windowStart) / window;
        if (passed > 0) {
            windowStart += passed * window;
            used = Math.max(0, used - passed * lengthThr);
        }
    }

    @Override
    public long nextSendTime(long now) {
        roll(now);
        if (used < lengthThr) return Long.MIN_VALUE;
        // the debt may span several windows
        return windowStart + (used / lengthThr) * window;
    }

    @Override
    public void onSent(int payloadBytes, long now) {
        roll(now);
        used += payloadBytes;
    }

    @Override
    public String name() {
        return "window:" + lengthThr + "/" + window;
    }
}
