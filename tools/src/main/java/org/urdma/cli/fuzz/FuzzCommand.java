package org.urdma.cli.fuzz;

import java.io.PrintStream;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import org.urdma.cli.Range;
import org.urdma.transport.fuzz.Fuzzer;
import org.urdma.transport.fuzz.OracleFailure;
import org.urdma.transport.wire.FramingKind;
import picocli.CommandLine.Command;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.Option;
import picocli.CommandLine.TypeConversionException;

/** {@code urdma fuzz --duration 10m --seed S [--framing F]}: the frame fuzzer against a live RC/UC/UD pair in memory. */
@Command(
    name = "fuzz",
    mixinStandardHelpOptions = true,
    description = {"Mutates valid frames of a live RC, UC and UD QP pair on the in-memory link and checks how the"
        + " engine takes them.",
        "Every header field, lengths, opcodes, PSNs at the window edges, stale and future ACK/NAK/RNR, wrong"
        + " sources, bad ICRC and truncation are mutated, and the frames injected from a foreign host, under a"
        + " virtual clock, until --duration of wall time. Checks that every frame is processed or dropped with a"
        + " counted reason, nothing throws, memory outside the exposed regions equals its shadow copy, and QPs"
        + " leave RTS only where the spec says. Prints frames/s and the count per reason; on the first oracle"
        + " failure prints one line with the seed and exits 1."})
public final class FuzzCommand implements Callable<Integer> {
    /** Frames per chunk between progress lines. */
    private static final long CHUNK = 200_000;

    @Option(names = "--duration", paramLabel = "TIME", defaultValue = "10s", converter = DurationConverter.class,
        description = "how long to run, wall time: a number with ms, s, m or h (default: ${DEFAULT-VALUE})")
    @Range(min = 1, why = "milliseconds")
    long durationMs;

    @Option(names = "--seed", paramLabel = "S", description = "seed of the run (default: drawn and printed); "
        + "the same seed and framing replay the same frames")
    @Range(why = "any 64-bit value")
    Long seed;

    @Option(names = "--framing", paramLabel = "F", defaultValue = "roce2", converter = FramingConverter.class,
        description = "wire format: roce1, roce2, paxi-standard, paxi-afh1, paxi-afh2 (default: ${DEFAULT-VALUE})")
    FramingKind framing;

    @Override
    public Integer call() {
        PrintStream out = System.out;
        long s = seed != null ? seed : new java.util.SplittableRandom().nextLong();
        out.printf("fuzz: framing %s, seed %d, duration %s%n", framing.cliName(), s, DurationConverter.format(durationMs));
        long start = System.nanoTime();
        long end = start + durationMs * 1_000_000L;
        Fuzzer.Report r;
        try (Fuzzer f = new Fuzzer(framing, s)) {
            long target = 0;
            do {
                target += CHUNK;
                r = f.run(target, () -> System.nanoTime() < end);
                double t = (System.nanoTime() - start) / 1e9;
                out.printf(Locale.ROOT, "%7.1f s %,12d frames %,10.0f frames/s %,8d reconnects%n", t, r.injected(),
                    r.injected() / t, r.reconnects());
            } while (System.nanoTime() < end);
        } catch (OracleFailure e) {
            System.err.println("urdma fuzz: oracle failure (seed " + s + ", framing " + framing.cliName() + "): " + e.getMessage());
            return 1;
        }
        double t = (System.nanoTime() - start) / 1e9;
        out.printf(Locale.ROOT, "%,d frames injected in %.1f s (%,.0f frames/s), %,d legitimate, %.1f ms simulated%n",
            r.injected(), t, r.injected() / t, r.legitimate(), r.virtualNanos() / 1e6);
        print(out, "injected frames by outcome", r.injectedOutcomes());
        print(out, "legitimate frames by outcome", r.legitimateOutcomes());
        print(out, "mutations", r.mutations());
        print(out, "expected QP events (spec) and known gaps", r.events());
        out.println("oracle: no failure");
        return 0;
    }

    private static void print(PrintStream out, String title, Map<?, Long> counts) {
        out.println(title + ":");
        if (counts.isEmpty()) out.println("  (none)");
        counts.forEach((k, v) -> out.printf(Locale.ROOT, "  %-12s %s%n", String.format(Locale.ROOT, "%,d", v), k));
    }

    /** {@code 500ms}, {@code 30s}, {@code 10m}, {@code 2h}; at least 1 ms. */
    static final class DurationConverter implements ITypeConverter<Long> {
        @Override
        public Long convert(String v) {
            java.util.regex.Matcher m = java.util.regex.Pattern.compile("(\\d{1,9})(ms|s|m|h)").matcher(v.trim());
            if (!m.matches()) throw new TypeConversionException("'" + v + "' is not a duration (e.g. 500ms, 30s, 10m, 2h)");
            long n = Long.parseLong(m.group(1));
            long ms = switch (m.group(2)) {
                case "ms" -> n;
                case "s" -> n * 1_000;
                case "m" -> n * 60_000;
                default -> n * 3_600_000;
            };
            if (ms < 1) throw new TypeConversionException("'" + v + "': must be at least 1ms");
            return ms;
        }

        static String format(long ms) {
            return ms % 60_000 == 0 ? ms / 60_000 + "m" : ms % 1_000 == 0 ? ms / 1_000 + "s" : ms + "ms";
        }
    }

    static final class FramingConverter implements ITypeConverter<FramingKind> {
        @Override
        public FramingKind convert(String v) {
            FramingKind k;
            try {
                k = FramingKind.parse(v);
            } catch (IllegalArgumentException e) {
                throw new TypeConversionException(e.getMessage().replaceFirst("^framing: ", ""));
            }
            if (k == FramingKind.PAXI_LITE) throw new TypeConversionException("paxi-lite carries no RC/UC/UD traffic to fuzz");
            return k;
        }
    }
}
