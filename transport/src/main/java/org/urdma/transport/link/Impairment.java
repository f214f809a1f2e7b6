package org.urdma.transport.link;

/**
 * What a {@link MemoryLink} direction does to frames, with netem-like semantics: independent loss,
 * duplication, corruption (one flipped bit) and reordering (a frame is held back and sent after
 * {@code reorderGap} later frames or after {@code reorderHoldNanos}), plus a deterministic drop of every
 * n-th frame (the SIGCOMM 2016 "IP ID ends in 0xff" switch rule). Randomness comes from the seed.
 */
public record Impairment(double loss, double duplicate, double corrupt, double reorder, int reorderGap,
                         long reorderHoldNanos, int dropEveryNth, long seed) {
    public static final Impairment NONE = new Impairment(0, 0, 0, 0, 1, 0, 0, 1);

    public Impairment {
        check("loss", loss);
        check("duplicate", duplicate);
        check("corrupt", corrupt);
        check("reorder", reorder);
        if (reorderGap < 1) throw new IllegalArgumentException("reorderGap: must be >= 1, was " + reorderGap);
        if (reorderHoldNanos < 0) throw new IllegalArgumentException("reorderHoldNanos: must be >= 0");
        if (dropEveryNth < 0 || dropEveryNth == 1) {
            throw new IllegalArgumentException("dropEveryNth: must be 0 (off) or >= 2, was " + dropEveryNth);
        }
    }

    private static void check(String field, double p) {
        if (!(p >= 0 && p <= 1)) throw new IllegalArgumentException(field + ": must be a probability in [0, 1], was " + p);
    }

    public static Impairment random(double loss, double duplicate, double reorder, long seed) {
        return new Impairment(loss, duplicate, 0, reorder, 3, 20_000, 0, seed);
    }

    public static Impairment dropEvery(int n) {
        return new Impairment(0, 0, 0, 0, 1, 0, n, 1);
    }

    public Impairment withCorrupt(double p) {
        return new Impairment(loss, duplicate, p, reorder, reorderGap, reorderHoldNanos, dropEveryNth, seed);
    }

    public Impairment withSeed(long s) {
        return new Impairment(loss, duplicate, corrupt, reorder, reorderGap, reorderHoldNanos, dropEveryNth, s);
    }

    public boolean isNone() {
        return loss == 0 && duplicate == 0 && corrupt == 0 && reorder == 0 && dropEveryNth == 0;
    }
}
