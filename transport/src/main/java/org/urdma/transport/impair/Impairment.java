package org.urdma.transport.impair;

import java.util.random.RandomGenerator;

/**
 * netem's per-packet decisions (Linux {@code net/sched/sch_netem.c}), pure and seeded: given a packet
 * offered at {@code now}, how many copies leave, when, and which are corrupted. The driver holds the
 * copies until their release time (netem's tfifo: ordered by time, ties in offer order). Randomness is
 * netem's: uniform 32-bit draws, optionally correlated with the previous draw of the same kind
 * ({@code get_crandom}); jitter uniform in [delay − jitter, delay + jitter) (scaled from the draw rather
 * than netem's modulo, so that delay correlation has an effect). One rule netem lacks comes first:
 * {@link ImpairmentConfig#dropEveryNth}. The only impairment model: switches and in-JVM links use it alike.
 */
public final class Impairment {
    /** The outcome for one offered packet; reused, valid until the next {@link #offer}. */
    public static final class Result {
        public int copies;
        public final long[] releaseAt = new long[2];
        /** Byte index to corrupt in copy i, or -1. */
        public final int[] corruptByte = new int[2];
        /** XOR mask for that byte (one bit). */
        public final int[] corruptMask = new int[2];
    }

    private static final long U32 = 0xFFFF_FFFFL;
    private static final int TX_IN_GAP = 1;
    private static final int TX_IN_BURST = 2;
    private static final int LOST_IN_BURST = 3;
    private static final int LOST_IN_GAP = 4;
    private static final int GOOD = 1;
    private static final int BAD = 2;

    private final RandomGenerator random;
    private final long delay;
    private final long jitter;
    private final LossModel lossModel;
    private final long loss;
    private final long duplicate;
    private final long reorder;
    private final long corrupt;
    private final int gap;
    private final long rateBps;
    private final int dropEveryNth;
    private final long a1;
    private final long a2;
    private final long a3;
    private final long a4;
    private final long a5;
    private final Correlated delayCor;
    private final Correlated lossCor;
    private final Correlated dupCor;
    private final Correlated reorderCor;
    private final Correlated corruptCor;
    private int lossState;
    private int counter;
    private long lastRelease = Long.MIN_VALUE;
    private final Result result = new Result();

    private long offered;
    private long lost;
    private long duplicated;
    private long reordered;
    private long corrupted;

    public Impairment(ImpairmentConfig config, RandomGenerator random) {
        config.validate();
        this.random = random;
        this.delay = config.delayNs;
        this.jitter = config.jitterNs;
        this.lossModel = config.lossModel;
        this.loss = u32(config.loss);
        this.duplicate = u32(config.duplicate);
        this.reorder = u32(config.reorder);
        this.corrupt = u32(config.corrupt);
        this.gap = config.reorder > 0 && config.gap == 0 ? 1 : config.gap;
        this.rateBps = config.rateBps;
        this.dropEveryNth = config.dropEveryNth;
        double[] lp = config.lossParams;
        if (lossModel == LossModel.GILBERT_ELLIOTT) {
            // tc: gemodel p r 1-h 1-k (all given explicitly here)
            a1 = u32(lp[0]);
            a2 = u32(lp[1]);
            a3 = u32(1 - lp[2]);       // h: netem loses in bad when rnd > h
            a4 = u32(lp[3]);           // 1-k: netem loses in good when rnd < 1-k
            a5 = 0;
            lossState = GOOD;
        } else if (lossModel == LossModel.FOUR_STATE) {
            // tc: state p13 p31 p32 p23 p14 (all given explicitly here)
            a1 = u32(lp[0]);
            a2 = u32(lp[1]);
            a3 = u32(lp[2]);
            a4 = u32(lp[4]);
            a5 = u32(lp[3]);
            lossState = TX_IN_GAP;
        } else {
            a1 = a2 = a3 = a4 = a5 = 0;
        }
        this.delayCor = new Correlated(config.delayCorrelation);
        this.lossCor = new Correlated(config.lossCorrelation);
        this.dupCor = new Correlated(config.duplicateCorrelation);
        this.reorderCor = new Correlated(config.reorderCorrelation);
        this.corruptCor = new Correlated(config.corruptCorrelation);
    }

    private static long u32(double fraction) {
        return Math.min(U32, (long) Math.floor(fraction * U32));
    }

    /**
     * A packet of {@code length} bytes is offered at {@code now}. Returns the reusable result: zero,
     * one or two copies with their release times (netem sends a duplicate through the qdisc again,
     * with duplication off, before the original).
     */
    public Result offer(long now, int length) {
        offered++;
        Result r = result;
        r.copies = 0;
        if (dropEveryNth > 0 && offered % dropEveryNth == 0) {
            // before any draw: the rule neither consumes randomness nor shifts the random decisions
            lost++;
            return r;
        }
        int count = 1;
        if (duplicate != 0 && duplicate >= dupCor.next(random)) {
            count++;
        }
        if (lose()) {
            count--;
        }
        if (count == 0) {
            lost++;
            return r;
        }
        if (count > 1) {
            duplicated++;
            // the clone: its own pass with duplication disabled
            if (!lose()) {
                place(r, now, length);
            } else {
                lost++;
            }
        }
        place(r, now, length);
        return r;
    }

    private void place(Result r, long now, int length) {
        int i = r.copies++;
        r.corruptByte[i] = -1;
        r.corruptMask[i] = 0;
        if (corrupt != 0 && corrupt >= corruptCor.next(random)) {
            corrupted++;
            r.corruptByte[i] = length > 0 ? (int) Long.remainderUnsigned(nextU32(), length) : -1;
            r.corruptMask[i] = 1 << (int) (nextU32() % 8);
        }
        if (gap == 0 || counter < gap - 1 || reorder < reorderCor.next(random)) {
            long d = tabledist();
            long base = now;
            if (rateBps > 0) {
                if (lastRelease > now) {
                    d = Math.max(0, d - (lastRelease - now));
                    base = lastRelease;
                }
                d += (length * 8L * 1_000_000_000L + rateBps - 1) / rateBps;
            }
            counter++;
            long at = base + d;
            r.releaseAt[i] = at;
            if (at > lastRelease) {
                lastRelease = at;
            }
        } else {
            // netem puts one packet out of gap at the head of the queue: sent now, overtaking the others
            reordered++;
            counter = 0;
            r.releaseAt[i] = now;
        }
    }

    private long tabledist() {
        if (jitter == 0) {
            return delay;
        }
        // netem takes rnd % (2 jitter), which throws the correlation away; scaling keeps it
        long rnd = delayCor.next(random);
        return (long) (rnd * (2.0 * jitter) / (U32 + 1.0)) + delay - jitter;
    }

    private long nextU32() {
        return random.nextInt() & U32;
    }

    private boolean lose() {
        switch (lossModel) {
            case RANDOM:
                return loss != 0 && loss >= lossCor.next(random);
            case GILBERT_ELLIOTT:
                return lossGilbertElliott();
            case FOUR_STATE:
                return loss4State();
            default:
                return false;
        }
    }

    private boolean lossGilbertElliott() {
        if (lossState == GOOD) {
            if (nextU32() < a1) {
                lossState = BAD;
            }
            return nextU32() < a4;
        }
        if (nextU32() < a2) {
            lossState = GOOD;
        }
        return nextU32() > a3;
    }

    /** netem loss_4state: a1 = p13, a2 = p31, a3 = p32, a4 = p14, a5 = p23. */
    private boolean loss4State() {
        long rnd = nextU32();
        switch (lossState) {
            case TX_IN_GAP:
                if (rnd < a4) {
                    lossState = LOST_IN_GAP;
                    return true;
                } else if (a4 < rnd && rnd < a1 + a4) {
                    lossState = LOST_IN_BURST;
                    return true;
                } else if (a1 + a4 < rnd) {
                    lossState = TX_IN_GAP;
                }
                return false;
            case TX_IN_BURST:
                if (rnd < a5) {
                    lossState = LOST_IN_BURST;
                    return true;
                }
                lossState = TX_IN_BURST;
                return false;
            case LOST_IN_BURST:
                if (rnd < a3) {
                    lossState = TX_IN_BURST;
                } else if (a3 < rnd && rnd < a2 + a3) {
                    lossState = TX_IN_GAP;
                } else if (a2 + a3 < rnd) {
                    lossState = LOST_IN_BURST;
                    return true;
                }
                return false;
            default:
                lossState = TX_IN_GAP;
                return false;
        }
    }

    public long offered() {
        return offered;
    }

    public long lost() {
        return lost;
    }

    public long duplicated() {
        return duplicated;
    }

    public long reordered() {
        return reordered;
    }

    public long corrupted() {
        return corrupted;
    }

    /** netem's get_crandom: a 32-bit draw mixed with the previous one by the correlation ρ. */
    static final class Correlated {
        private final long rho;
        private long last;

        Correlated(double correlation) {
            this.rho = u32(correlation);
        }

        long next(RandomGenerator random) {
            long value = random.nextInt() & U32;
            if (rho == 0) {
                return value;
            }
            long r = rho + 1;
            long answer = (value * ((1L << 32) - r) + last * r) >>> 32;
            last = answer;
            return answer;
        }
    }
}
