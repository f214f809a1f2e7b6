package org.urdma.switchemu.sim;

import org.junit.jupiter.api.Test;
import org.urdma.transport.impair.Impairment;
import org.urdma.transport.impair.ImpairmentConfig;

import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Impairment on a switch egress port, measured at the receiving host over 100k+ frames. */
class ImpairmentSimTest {
    private static final long RATE = 10_000_000_000L;
    private static final int FRAMES = 120_000;
    private static final int SIZE = 200;
    private static final long PROP = 1_000;
    private static final long PIPELINE = 300;

    /** Exact serialization time (ns, fractional); reported times are rounded up to whole ns once per hop. */
    private static double ser() {
        return (SIZE + 24) * 8.0 * 1e9 / RATE;
    }

    private static FlowStats run(ImpairmentConfig impairment, long seed) {
        Star net = new Star(2, RATE, PROP, c -> c.pipelineDelayNs(PIPELINE), p -> { }, seed);
        net.sw.core().addStaticMac(Star.mac(1), 1);
        net.sw.impairEgress(1, new Impairment(impairment, new SplittableRandom(seed)));
        net.hosts[0].send(new Flow(1, Star.mac(1), 0, SIZE, FRAMES));
        net.sim.runToIdle(10_000_000_000L);
        assertEquals(0, net.sw.core().counters(0).totalDrops(), "the switch itself drops nothing");
        return net.hosts[1].stats(1);
    }

    private static void assertRate(double expected, long count, long n, String what) {
        double sigma = Math.sqrt(n * expected * (1 - expected));
        assertEquals(expected * n, count, 4 * sigma + 1, what + ": " + count + " of " + n);
    }

    @Test
    void lossDuplicationDelayAndJitterMatchTheConfiguration() {
        double loss = 0.01;
        double dup = 0.01;
        long delay = 50_000;
        long jitter = 10_000;
        ImpairmentConfig config = ImpairmentConfig.none().lossRandom(loss, 0).duplicate(dup, 0).delay(delay, jitter, 0);
        FlowStats s = run(config, 21);
        // netem: a duplicated packet that draws a loss just loses its extra copy; the clone may be lost again
        assertRate(loss * (1 - dup), FRAMES - s.unique, FRAMES, "lost");
        assertRate(dup * (1 - loss) * (1 - loss), s.duplicates, FRAMES, "duplicated");
        double base = 2 * ser() + 2 * PROP + PIPELINE;
        double std = jitter / Math.sqrt(3);
        assertEquals(base + delay, s.meanDelayNs(), 4 * std / Math.sqrt(s.frames) + 2, "mean delay");
        assertEquals(std, s.stdDevDelayNs(), 0.02 * std, "jitter (std of a uniform ±jitter)");
        assertTrue(s.minDelayNs >= base + delay - jitter - 1 && s.maxDelayNs < base + delay + jitter + 2);
        assertTrue(s.reordered > 0, "jitter reorders, as netem's time-sorted queue does");
    }

    @Test
    void reorderingSendsTheExpectedShareImmediately() {
        int gap = 5;
        double p = 0.1;
        long delay = 1_000_000;
        FlowStats s = run(ImpairmentConfig.none().delay(delay, 0, 0).reorder(p, 0, gap), 22);
        assertEquals(FRAMES, s.unique);
        double base = 2 * ser() + 2 * PROP + PIPELINE;
        // every frame is either delayed by exactly `delay` or sent at once (min delay = base)
        assertEquals(base, s.minDelayNs, 2);
        assertEquals(base + delay, s.maxDelayNs, 2);
        double immediateShare = (base + delay - s.meanDelayNs()) / delay;
        double expected = 1 / ((gap - 1) + 1 / p);
        assertEquals(expected, immediateShare, 0.05 * expected, "share sent immediately");
        assertTrue(s.reordered > 0);
    }

    @Test
    void aSeededRunIsDeterministic() {
        ImpairmentConfig config = ImpairmentConfig.none().lossGilbertElliott(0.01, 0.3, 0.8, 0.001)
            .delay(20_000, 5_000, 0.3).duplicate(0.005, 0);
        FlowStats a = run(config, 5);
        FlowStats b = run(config, 5);
        assertEquals(a.unique, b.unique);
        assertEquals(a.duplicates, b.duplicates);
        assertEquals(a.reordered, b.reordered);
        assertEquals(a.meanDelayNs(), b.meanDelayNs());
    }
}
