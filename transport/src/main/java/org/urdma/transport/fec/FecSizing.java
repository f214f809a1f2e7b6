package org.urdma.transport.fec;

/**
 * Group sizing from the measured loss rate. The paper (seed 001 §2.2.3) says only that the number of packets per
 * group follows the loss rate and that a clean path needs less redundancy; the rule here is ours:
 * <ol>
 * <li>stripe length k (data packets per parity): parity costs 1 / k of the data rate, so k = ⌈1 / (budget × p)⌉, within
 *     [kMin, kMax]: parity never takes more than {@code budget} (default 2) times the loss rate. Random loss is resent
 *     by SACK for one packet of bandwidth each, so parity is paid for by the round trips it saves, not by bandwidth: a
 *     stripe of 10 at 1 % (the earlier rule: repair 90 % of losses) spent 10 % on parity and read 0.80 of a 1 Gbit/s
 *     bottleneck at 20 ms where 2 % reads more; with k = 50 a stripe still repairs (1 - p)^49 = 61 % of losses;</li>
 * <li>parity per group r = ceil(groupTarget / k) (at most maxParity), m = r × k (at most 255): groups stay about
 *     groupTarget packets long and hold more stripes as loss grows, so a burst is spread over more parities.</li>
 * </ol>
 * So with the defaults (kMin 2, kMax 128, groupTarget 128, budget 2): a clean path and p up to 0.39 % give m = 128,
 * r = 1 (0.8 % overhead); 1 % gives k = 50, m = 150, r = 3 (2 %); 5 % gives k = 10, m = 130, r = 13 (10 %); 25 % and
 * more k = 2 (50 %). The loss rate is an EWMA (gain 1/4) of the receiver's reports; a new k is taken only when it is
 * at least a quarter larger or smaller (or a bound), so report noise does not change the geometry (each change costs
 * the receiver a group).
 */
public final class FecSizing {
    private final int kMin;
    private final int kMax;
    private final int groupTarget;
    private final int maxParity;
    private final double budget;
    private double loss;
    private int k;
    private int m;
    private int r;

    public FecSizing(int kMin, int kMax, int groupTarget, int maxParity, double budget) {
        if (kMin < 1 || kMin > kMax) throw new IllegalArgumentException("fec: kMin must be 1..kMax, was " + kMin);
        if (kMax > 255) throw new IllegalArgumentException("fec: kMax must be <= 255, was " + kMax);
        if (groupTarget < kMax || groupTarget > 255) throw new IllegalArgumentException("fec: groupTarget must be kMax..255, was " + groupTarget);
        if (maxParity < 1 || maxParity > 255) throw new IllegalArgumentException("fec: maxParity must be 1..255, was " + maxParity);
        if (!(budget > 0)) throw new IllegalArgumentException("fec: budget must be > 0, was " + budget);
        this.kMin = kMin;
        this.kMax = kMax;
        this.groupTarget = groupTarget;
        this.maxParity = maxParity;
        this.budget = budget;
        apply(kMax);
    }

    public static FecSizing defaults() {
        return new FecSizing(2, 128, 128, 32, 2);
    }

    /** Stripe length for loss rate {@code p} (no smoothing, no hysteresis). */
    public int stripeLength(double p) {
        if (!(p > 0)) return kMax;
        if (p >= 1) return kMin;
        double k = Math.ceil(1 / (budget * p) - 1e-9); // parity 1 / k at most budget x p
        return (int) Math.max(kMin, Math.min(kMax, k));
    }

    /** A loss-rate report (fraction 0..1); returns true when m or r changed (the next group takes them). */
    public boolean onLossRate(double fraction) {
        double f = Math.min(Math.max(fraction, 0), 1);
        loss += 0.25 * (f - loss);
        int nk = stripeLength(loss);
        // k follows 1 / p continuously: only a change by a quarter (or to a bound) is taken, so noise does not move it
        if (nk == k || nk > k && nk < k * 5 / 4 && nk < kMax || nk < k && nk * 5 / 4 > k && nk > kMin) return false;
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
