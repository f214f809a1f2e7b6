package org.urdma.tools.perf;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class JitWarmupTest {
    private static final long T = JitWarmup.ITERATION_NANOS;

    @Test
    void theWarmUpGoesOnWhileTheJitCompilesAndEndsAfterTheFirstQuietIteration() {
        long[] compiled = {100};
        JitWarmup w = new JitWarmup(() -> compiled[0], 10);
        w.start(0);
        assertFalse(w.over(T - 1), "an iteration runs whole");
        compiled[0] = 140;
        assertFalse(w.over(T), "the JIT compiled during the first iteration: a second one");
        compiled[0] = 150;
        assertFalse(w.over(2 * T), "and during the second: a third");
        assertFalse(w.over(3 * T - 1));
        assertTrue(w.over(3 * T), "the third passed without compilation");
        assertTrue(w.over(3 * T + 1), "over stays over");
        assertEquals(3, w.iterations());
    }

    @Test
    void aJitThatNeverGoesQuietEndsTheWarmUpAtTheMostIterations() {
        long[] compiled = {0};
        JitWarmup w = new JitWarmup(() -> compiled[0]++, 4);
        w.start(0);
        long now = 0;
        while (!w.over(now)) {
            now += T;
        }
        assertEquals(4, w.iterations());
        assertEquals(4 * T, now);
    }

    @Test
    void theHeaderSaysAWarmUpRunsBeforeTheMeasuredIterations() {
        assertTrue(JitWarmup.describe().startsWith(" Warm-up         : unmeasured 200 ms iterations before the measured ones"),
                JitWarmup.describe());
    }
}
