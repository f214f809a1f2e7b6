package org.urdma.tools.perf;

import java.lang.management.CompilationMXBean;
import java.lang.management.ManagementFactory;
import java.util.Locale;
import java.util.function.LongSupplier;

/**
 * The warm-up of a bandwidth run, as JMH's warm-up iterations: unmeasured iterations of {@link #ITERATION_NANOS}
 * until one passes in which the JIT compiled nothing (or the most iterations have run). A fixed count does not say
 * when the data path is compiled: on a busy machine C2 still works seconds after the first message. Once warm, as
 * in a second run in the same JVM, one iteration is enough.
 */
final class JitWarmup {
    static final long ITERATION_NANOS = 200_000_000L;
    /** At most this many iterations; the property lowers it where nothing is measured (the test suite). */
    static final int MAX_ITERATIONS = Integer.getInteger("urdma.perf.warmupIterations", 10);

    private final LongSupplier compiledMillis;
    private final int maxIterations;
    private long iterationEnd;
    private long compiledAtStart;
    private int iterations;
    private boolean over;

    JitWarmup(LongSupplier compiledMillis, int maxIterations) {
        this.compiledMillis = compiledMillis;
        this.maxIterations = maxIterations;
    }

    /** Watches this JVM's JIT; without compilation-time monitoring every iteration runs. */
    static JitWarmup ofThisJvm() {
        CompilationMXBean jit = ManagementFactory.getCompilationMXBean();
        if (jit == null || !jit.isCompilationTimeMonitoringSupported()) {
            long[] tick = {0};
            return new JitWarmup(() -> ++tick[0], MAX_ITERATIONS);
        }
        return new JitWarmup(jit::getTotalCompilationTime, MAX_ITERATIONS);
    }

    /** The header line that says a warm-up runs before the measured iterations. */
    static String describe() {
        return String.format(Locale.ROOT, " Warm-up         : unmeasured %d ms iterations before the measured ones, until one passes"
                + " without JIT compilation (at most %d)", ITERATION_NANOS / 1_000_000, MAX_ITERATIONS);
    }

    void start(long now) {
        iterationEnd = now + ITERATION_NANOS;
        compiledAtStart = compiledMillis.getAsLong();
        iterations = 1;
        over = false;
    }

    /** Whether the warm-up is over at {@code now}; it stays over once it is. */
    boolean over(long now) {
        if (over || now - iterationEnd < 0) return over;
        long compiled = compiledMillis.getAsLong();
        if (compiled == compiledAtStart || iterations >= maxIterations) {
            over = true;
        } else {
            compiledAtStart = compiled;
            iterations++;
            iterationEnd = now + ITERATION_NANOS;
        }
        return over;
    }

    int iterations() {
        return iterations;
    }
}
