package org.urdma.transport.fec;

/**
 * Group sizing from the measured loss rate. The paper (seed 001 §2.2.3) says only that the number of packets per
 * group follows the loss rate and that a clean path needs less redundancy; the rule here is ours:
 * <ol>
 * <li>stripe length k (data packets per parity): the largest k in [kMin, kMax] for which the chance that a lost
 *     packet's stripe loses another one, 1 - (1 - p)^k, stays at or under {@code residual} (default 0.1: FEC repairs at
 *     least 90 % of random losses; the rest go to SACK). Overhead is r / m = 1 / k;</li>
 * <li>parity per group r = ceil(groupTarget / k) (at most maxParity), m = r × k (at most 255): groups stay about
 *     groupTarget packets long and hold more stripes as loss grows, so a burst is spread over more parities.</li>
 * </ol>
 * So with the defaults (kMin 2, kMax 64, groupTarget 64): p = 0.01 % or 0.1 % gives m = 64, r = 1 (1.6 % overhead);
 * 1 % gives k = 10, m = 70, r = 7 (10 %); 5 % gives k = 2, m = 64, r = 32 (50 %). The loss rate is an EWMA (gain 1/4)
 * of the receiver's reports; a new k is taken at once when it is smaller (more protection), and only when at least
 * 25 % larger otherwise, so report noise does not change the geometry (each change costs the receiver a group).
 */
public final class FecSizing {
    private final int kMin;
    private final int kMax;
    private final int groupTarget;
    private final int maxParity;
    private final double residual;
    private double loss;
    private int k;
    private int m;
    private int r;

    public FecSizing(int kMin, int kMax, int groupTarget, int maxParity, double residual) {
        if (kMin < 1 || kMin > kMax) throw new IllegalArgumentException("fec: kMin must be 1..kMax, was " + kMin);
        if (kMax > 255) throw new IllegalArgumentException("fec: kMax must be <= 255, was " + kMax);
        if (groupTarget < kMax || groupTarget > 255) throw new IllegalArgumentException("fec: groupTarget must be kMax..255, was " + groupTarget);
        if (maxParity < 1 || maxParity > 255) throw new IllegalArgumentException("fec: maxParity must be 1..255, was " + maxParity);
        if (!(residual > 0 && residual < 1)) throw new IllegalArgumentException("fec: residual must be in (0, 1), was " + residual);
        this.kMin = kMin;
        this.kMax = kMax;
        this.groupTarget = groupTarget;
        this.maxParity = maxParity;
        this.residual = residual;
        apply(kMax);
    }

    public static FecSizing defaults() {
        return new FecSizing(2, 64, 64, 32, 0.1);
    }

    /** Stripe length for loss rate {@code p} (no smoothing, no hysteresis). */
    public int stripeLength(double p) {
        if (!(p > 0)) return kMax;
        if (p >= 1) return kMin;
        // 1 - (1 - p)^k <= residual  <=>  k <= ln(1 - residual) / ln(1 - p)
        double k = Math.log1p(-residual) / Math.log1p(-p);
        return (int) Math.max(kMin, Math.min(kMax, Math.floor(k)));
    }

    /** A loss-rate report (fraction 0..1); returns true when m or r changed (the next group takes them). */
    public boolean onLossRate(double fraction) {
        double f = Math.min(Math.max(fraction, 0), 1);
        loss += 0.25 * (f - loss);
        int nk = stripeLength(loss);
        if (nk == k || nk > k && nk < k * 5 / 4 && nk < kMax) return false;
        int om = m;
        int or = r;
        apply(nk);
        return m != om || r != or;
    }

    private void apply(int stripe) {
        k = stripe;
        r = Math.min(maxParity, (groupTarget + k - 1) / k);
        m = Math.min(255, r * k);
        r = Math.min(r, m);
    }

    /** Data packets per group. */
    public int m() {
        return m;
    }

    /** Parity packets per group. */
    public int r() {
        return r;
    }

    /** The smoothed loss rate. */
    public double lossRate() {
        return loss;
    }
}
