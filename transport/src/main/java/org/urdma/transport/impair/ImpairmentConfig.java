package org.urdma.transport.impair;

/**
 * What netem would be told: delay with jitter and correlation, loss (random with correlation,
 * Gilbert-Elliott, 4-state), duplication, reordering with a gap, corruption, rate. Probabilities are
 * fractions (0.01 = 1 %), correlations fractions too, times in ns, rate in bit/s (0 = unlimited).
 * One extra that netem lacks: {@link #dropEveryNth}, the deterministic drop of every n-th frame (the
 * SIGCOMM 2016 switch rule that dropped packets whose IP ID ended in 0xff). The seed is what an in-JVM
 * link draws from; switches derive theirs from their own seed.
 */
public final class ImpairmentConfig {
    long delayNs;
    long jitterNs;
    double delayCorrelation;
    LossModel lossModel = LossModel.NONE;
    double loss;
    double lossCorrelation;
    /** GE p, r, 1-h, 1-k; or 4-state p13, p31, p32, p23, p14 (netem's a1..a5 order differs: see Impairment). */
    final double[] lossParams = new double[5];
    double duplicate;
    double duplicateCorrelation;
    double reorder;
    double reorderCorrelation;
    int gap;
    double corrupt;
    double corruptCorrelation;
    long rateBps;
    int dropEveryNth;
    long seed = 1;

    public static ImpairmentConfig none() {
        return new ImpairmentConfig();
    }

    /** Independent loss and duplication, and reordering (frames sent at once past others delayed 20 µs). */
    public static ImpairmentConfig random(double loss, double duplicate, double reorder, long seed) {
        ImpairmentConfig c = none().seed(seed);
        if (loss > 0) {
            c.lossRandom(loss, 0);
        }
        if (reorder > 0) {
            c.delay(20_000, 0, 0).reorder(reorder, 0, 1);
        }
        return c.duplicate(duplicate, 0);
    }

    /** Only the deterministic drop of every n-th frame. */
    public static ImpairmentConfig dropEvery(int n) {
        return none().dropEveryNth(n);
    }

    public ImpairmentConfig delay(long delayNs, long jitterNs, double correlation) {
        this.delayNs = delayNs;
        this.jitterNs = jitterNs;
        this.delayCorrelation = correlation;
        return this;
    }

    public ImpairmentConfig lossRandom(double probability, double correlation) {
        this.lossModel = LossModel.RANDOM;
        this.loss = probability;
        this.lossCorrelation = correlation;
        return this;
    }

    /** netem {@code loss gemodel p r 1-h 1-k}: p good→bad, r bad→good, loss probability in bad and in good. */
    public ImpairmentConfig lossGilbertElliott(double p, double r, double lossInBad, double lossInGood) {
        this.lossModel = LossModel.GILBERT_ELLIOTT;
        lossParams[0] = p;
        lossParams[1] = r;
        lossParams[2] = lossInBad;
        lossParams[3] = lossInGood;
        return this;
    }

    /** netem {@code loss state p13 p31 p32 p23 p14}. */
    public ImpairmentConfig lossFourState(double p13, double p31, double p32, double p23, double p14) {
        this.lossModel = LossModel.FOUR_STATE;
        lossParams[0] = p13;
        lossParams[1] = p31;
        lossParams[2] = p32;
        lossParams[3] = p23;
        lossParams[4] = p14;
        return this;
    }

    public ImpairmentConfig duplicate(double probability, double correlation) {
        this.duplicate = probability;
        this.duplicateCorrelation = correlation;
        return this;
    }

    /** netem {@code reorder P [CORR] gap G}: every G-th packet is a reorder candidate (G defaults to 1). */
    public ImpairmentConfig reorder(double probability, double correlation, int gap) {
        this.reorder = probability;
        this.reorderCorrelation = correlation;
        this.gap = gap;
        return this;
    }

    public ImpairmentConfig corrupt(double probability, double correlation) {
        this.corrupt = probability;
        this.corruptCorrelation = correlation;
        return this;
    }

    public ImpairmentConfig rateBps(long rateBps) {
        this.rateBps = rateBps;
        return this;
    }

    /** Drops frames n, 2n, 3n... (counting from 1) before any random decision; 0 = off. Not a netem option. */
    public ImpairmentConfig dropEveryNth(int n) {
        this.dropEveryNth = n;
        return this;
    }

    public ImpairmentConfig seed(long seed) {
        this.seed = seed;
        return this;
    }

    public int dropEveryNth() {
        return dropEveryNth;
    }

    public long seed() {
        return seed;
    }

    /** Whether a frame may leave later than offered (so a link must hold it): delay, jitter, rate, reordering. */
    public boolean delays() {
        return delayNs > 0 || jitterNs > 0 || rateBps > 0 || reorder > 0;
    }

    public boolean corrupts() {
        return corrupt > 0;
    }

    public boolean isNone() {
        return delayNs == 0 && jitterNs == 0 && lossModel == LossModel.NONE && duplicate == 0 && reorder == 0
            && corrupt == 0 && rateBps == 0 && dropEveryNth == 0;
    }

    void validate() {
        check("delay", delayNs >= 0 && jitterNs >= 0, "delay and jitter must be >= 0");
        fraction("delay correlation", delayCorrelation);
        fraction("loss", loss);
        fraction("loss correlation", lossCorrelation);
        for (double p : lossParams) {
            fraction("loss model parameter", p);
        }
        fraction("duplicate", duplicate);
        fraction("duplicate correlation", duplicateCorrelation);
        fraction("reorder", reorder);
        fraction("reorder correlation", reorderCorrelation);
        fraction("corrupt", corrupt);
        fraction("corrupt correlation", corruptCorrelation);
        check("gap", gap >= 0, "gap must be >= 0");
        check("reorder", reorder == 0 || delayNs > 0, "reordering needs a delay (as in tc netem)");
        check("rate", rateBps >= 0, "rate must be >= 0");
        check("dropEveryNth", dropEveryNth == 0 || dropEveryNth >= 2, "must be 0 (off) or >= 2, was " + dropEveryNth);
    }

    private static void fraction(String field, double value) {
        check(field, value >= 0 && value <= 1, "must be a fraction 0..1, was " + value);
    }

    private static void check(String field, boolean ok, String rule) {
        if (!ok) {
            throw new IllegalArgumentException("impairment " + field + ": " + rule);
        }
    }
}
