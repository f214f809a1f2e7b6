package org.urdma.transport.impair;

import org.junit.jupiter.api.Test;

import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** netem semantics of the impairment stage, measured over 200k packets (seeded). */
class ImpairmentTest {
    private static final int N = 200_000;

    private static void assertRate(double expected, long count, long n, String what) {
        double sigma = Math.sqrt(n * expected * (1 - expected));
        assertEquals(expected * n, count, 4 * sigma + 1, what + ": " + count + " of " + n);
    }

    @Test
    void randomLossMatchesItsProbability() {
        Impairment imp = new Impairment(ImpairmentConfig.none().lossRandom(0.01, 0), new SplittableRandom(1));
        for (int i = 0; i < N; i++) {
            imp.offer(i * 1000L, 1000);
        }
        assertRate(0.01, imp.lost(), N, "loss");
    }

    @Test
    void gilbertElliottLossRateAndBurstLengthFollowTheChain() {
        double p = 0.01;
        double r = 0.25;
        Impairment imp = new Impairment(ImpairmentConfig.none().lossGilbertElliott(p, r, 1.0, 0.0), new SplittableRandom(2));
        long bursts = lossBursts(imp);
        double piBad = p / (p + r);
        double rate = imp.lost() / (double) N;
        assertEquals(piBad, rate, 0.15 * piBad, "stationary loss rate");
        double meanBurst = imp.lost() / (double) bursts;
        assertEquals(1 / r, meanBurst, 0.1 / r, "mean loss burst = 1/r");
    }

    @Test
    void fourStateLossFollowsTheChain() {
        // only the gap→burst-loss and burst-loss→gap transitions: loss rate p13/(p13+p31), bursts 1/p31
        double p13 = 0.01;
        double p31 = 0.5;
        Impairment imp = new Impairment(ImpairmentConfig.none().lossFourState(p13, p31, 0, 0, 0), new SplittableRandom(3));
        long bursts = lossBursts(imp);
        double expected = p13 / (p13 + p31);
        assertEquals(expected, imp.lost() / (double) N, 0.1 * expected);
        assertEquals(1 / p31, imp.lost() / (double) bursts, 0.1 / p31);
    }

    @Test
    void duplicationAddsAnIndependentlyDelayedCopy() {
        Impairment imp = new Impairment(ImpairmentConfig.none().duplicate(0.05, 0).delay(1_000, 0, 0), new SplittableRandom(4));
        long copies = 0;
        for (int i = 0; i < N; i++) {
            Impairment.Result r = imp.offer(i * 10_000L, 100);
            copies += r.copies;
            for (int c = 0; c < r.copies; c++) {
                assertEquals(i * 10_000L + 1_000, r.releaseAt[c]);
            }
        }
        assertRate(0.05, imp.duplicated(), N, "duplicates");
        assertEquals(N + imp.duplicated(), copies);
    }

    @Test
    void delayAndJitterAreUniformAroundTheMean() {
        long delay = 100_000;
        long jitter = 20_000;
        Impairment imp = new Impairment(ImpairmentConfig.none().delay(delay, jitter, 0), new SplittableRandom(5));
        double sum = 0;
        double squares = 0;
        long min = Long.MAX_VALUE;
        long max = Long.MIN_VALUE;
        for (int i = 0; i < N; i++) {
            long now = i * 1_000_000L;
            long d = imp.offer(now, 100).releaseAt[0] - now;
            sum += d;
            squares += (double) d * d;
            min = Math.min(min, d);
            max = Math.max(max, d);
        }
        double mean = sum / N;
        double std = Math.sqrt(squares / N - mean * mean);
        double expectedStd = jitter / Math.sqrt(3);
        assertEquals(delay, mean, 4 * expectedStd / Math.sqrt(N) + 1);
        assertEquals(expectedStd, std, 0.01 * expectedStd);
        assertTrue(min >= delay - jitter && max < delay + jitter);
    }

    @Test
    void correlatedDelayChangesSlowly() {
        Impairment plain = new Impairment(ImpairmentConfig.none().delay(100_000, 20_000, 0), new SplittableRandom(6));
        Impairment correlated = new Impairment(ImpairmentConfig.none().delay(100_000, 20_000, 0.9), new SplittableRandom(6));
        assertTrue(meanStep(correlated) < 0.3 * meanStep(plain), "correlation 0.9 makes successive delays close");
    }

    private static double meanStep(Impairment imp) {
        long previous = 0;
        double steps = 0;
        for (int i = 0; i < 10_000; i++) {
            long now = i * 1_000_000L;
            long d = imp.offer(now, 100).releaseAt[0] - now;
            if (i > 0) {
                steps += Math.abs(d - previous);
            }
            previous = d;
        }
        return steps / 9_999;
    }

    @Test
    void reorderWithGapSendsOnePacketInGapImmediately() {
        // netem: packets 1..gap-1 after a reordered one are always delayed, then each is sent at once with P
        int gap = 5;
        double p = 0.25;
        Impairment imp = new Impairment(ImpairmentConfig.none().delay(10_000_000, 0, 0).reorder(p, 0, gap), new SplittableRandom(7));
        int sinceReorder = 0;
        for (int i = 0; i < N; i++) {
            long now = i * 1_000L;
            long at = imp.offer(now, 100).releaseAt[0];
            if (at == now) {
                assertTrue(sinceReorder >= gap - 1, "never within gap-1 packets of the previous one");
                sinceReorder = 0;
            } else {
                assertEquals(now + 10_000_000, at);
                sinceReorder++;
            }
        }
        double expected = 1 / ((gap - 1) + 1 / p);
        assertEquals(expected, imp.reordered() / (double) N, 0.03 * expected);
    }

    @Test
    void rateSpacesPacketsBySerializationTime() {
        Impairment imp = new Impairment(ImpairmentConfig.none().rateBps(1_000_000_000L), new SplittableRandom(8));
        long previous = 0;
        for (int i = 0; i < 1000; i++) {
            long at = imp.offer(0, 1000).releaseAt[0];
            assertEquals(previous + 8_000, at, "1000 B at 1 Gbit/s = 8 µs each");
            previous = at;
        }
        // once the backlog has drained, a packet waits only its own time
        assertEquals(100_000_000 + 8_000, imp.offer(100_000_000, 1000).releaseAt[0]);
    }

    @Test
    void corruptionFlipsOneBitInsideThePacket() {
        Impairment imp = new Impairment(ImpairmentConfig.none().corrupt(0.02, 0), new SplittableRandom(9));
        for (int i = 0; i < N; i++) {
            Impairment.Result r = imp.offer(i, 200);
            if (r.corruptByte[0] >= 0) {
                assertTrue(r.corruptByte[0] < 200);
                assertEquals(1, Integer.bitCount(r.corruptMask[0]));
            }
        }
        assertRate(0.02, imp.corrupted(), N, "corrupted");
    }

    @Test
    void sameSeedSameDecisions() {
        ImpairmentConfig config = ImpairmentConfig.none().delay(50_000, 10_000, 0.25).lossRandom(0.02, 0.25)
            .duplicate(0.01, 0).reorder(0.05, 0, 3).corrupt(0.01, 0);
        assertArrayEquals(trace(config, 11), trace(config, 11));
        assertTrue(!java.util.Arrays.equals(trace(config, 11), trace(config, 12)));
    }

    private static long[] trace(ImpairmentConfig config, long seed) {
        Impairment imp = new Impairment(config, new SplittableRandom(seed));
        long[] out = new long[3000];
        for (int i = 0; i < 1000; i++) {
            Impairment.Result r = imp.offer(i * 1000L, 500);
            out[3 * i] = r.copies;
            out[3 * i + 1] = r.copies > 0 ? r.releaseAt[0] : -1;
            out[3 * i + 2] = r.copies > 0 ? r.corruptByte[0] : -2;
        }
        return out;
    }

    @Test
    void dropEveryNthDropsFramesNTwoNAndSoOnWithoutShiftingTheRandomDecisions() {
        ImpairmentConfig random = ImpairmentConfig.none().delay(50_000, 10_000, 0).lossRandom(0.02, 0).duplicate(0.01, 0);
        Impairment without = new Impairment(random, new SplittableRandom(7));
        Impairment with = new Impairment(ImpairmentConfig.none().delay(50_000, 10_000, 0).lossRandom(0.02, 0)
            .duplicate(0.01, 0).dropEveryNth(10), new SplittableRandom(7));
        for (int i = 0; i < 10_000; i++) {
            Impairment.Result r = with.offer(i * 1000L, 500);
            if ((i + 1) % 10 == 0) {
                assertEquals(0, r.copies, "frame " + (i + 1));
                continue;
            }
            // the rule takes no draw: the frames it lets by meet the same decisions as on a path without it
            Impairment.Result q = without.offer(i * 1000L, 500);
            assertEquals(q.copies, r.copies, "frame " + (i + 1));
            for (int c = 0; c < r.copies; c++) {
                assertEquals(q.releaseAt[c], r.releaseAt[c]);
            }
        }
        assertEquals(1000 + without.lost(), with.lost());
    }

    @Test
    void badConfigurationNamesTheField() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
            () -> new Impairment(ImpairmentConfig.none().lossRandom(1.5, 0), new SplittableRandom(1)));
        assertTrue(e.getMessage().contains("loss"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class,
            () -> new Impairment(ImpairmentConfig.none().reorder(0.1, 0, 2), new SplittableRandom(1)));
        assertTrue(e.getMessage().contains("reorder"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class,
            () -> new Impairment(ImpairmentConfig.dropEvery(1), new SplittableRandom(1)));
        assertTrue(e.getMessage().startsWith("impairment dropEveryNth:"), e.getMessage());
    }

    /** Offers N frames and counts the runs of consecutive losses. */
    private static long lossBursts(Impairment imp) {
        long bursts = 0;
        boolean previousLost = false;
        for (int i = 0; i < N; i++) {
            boolean lostNow = imp.offer(i, 100).copies == 0;
            if (lostNow && !previousLost) {
                bursts++;
            }
            previousLost = lostNow;
        }
        return bursts;
    }
}
