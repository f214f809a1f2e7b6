package org.urdma.cli;

import java.lang.reflect.Field;
import java.util.Arrays;
import java.util.stream.Collectors;
import picocli.CommandLine;
import picocli.CommandLine.Model.ArgSpec;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.ParseResult;

/** Checks every value the user gave against its option's {@link Range}, for every command of the parsed chain. */
public final class OptionChecks {
    private OptionChecks() {
    }

    /** Throws a {@link ParameterException} naming the option and the accepted values at the first bad value. */
    public static void check(ParseResult parsed) {
        for (ParseResult r = parsed; r != null; r = r.hasSubcommand() ? r.subcommand() : null) {
            for (ArgSpec arg : r.matchedArgs()) {
                Range range = range(arg);
                if (range == null) continue;
                Object value = arg.getValue();
                String problem = value instanceof Number n ? problem(range, n) : null;
                if (problem != null) {
                    throw new ParameterException(r.commandSpec().commandLine(), name(arg) + ": " + problem + ", was " + value
                            + (range.why().isEmpty() ? "" : " (" + range.why() + ")"), arg, String.valueOf(value));
                }
            }
        }
    }

    /** The option's {@link Range}, or null. */
    public static Range range(ArgSpec arg) {
        return arg.userObject() instanceof Field f ? f.getAnnotation(Range.class) : null;
    }

    /** How the user names it: "-s/--size", or the parameter's label. */
    static String name(ArgSpec arg) {
        return arg instanceof OptionSpec o ? String.join("/", o.names()) : arg.paramLabel();
    }

    /** What is wrong with {@code n}, or null when it is accepted. */
    static String problem(Range r, Number n) {
        double v = n.doubleValue();
        if (Double.isNaN(v)) return "must be a number";
        if (r.oneOf().length > 0) {
            if (Arrays.stream(r.oneOf()).noneMatch(x -> x == v)) {
                return "must be one of " + Arrays.stream(r.oneOf()).mapToObj(Long::toString).collect(Collectors.joining(", "));
            }
            return null;
        }
        if (r.integer() && v != Math.rint(v)) return "must be a whole number";
        if (v < r.min() || v > r.max()) {
            if (r.max() == Double.POSITIVE_INFINITY) return "must be at least " + format(r.min());
            if (r.min() == Double.NEGATIVE_INFINITY) return "must be at most " + format(r.max());
            return "must be " + format(r.min()) + ".." + format(r.max());
        }
        if (r.powerOfTwo() && (n.longValue() <= 0 || Long.bitCount(n.longValue()) != 1)) return "must be a power of two";
        return null;
    }

    private static String format(double d) {
        return d == Math.rint(d) && Math.abs(d) < 1e18 ? Long.toString((long) d) : Double.toString(d);
    }

    /** Whether picocli stores this argument as a number (the ones that must carry a {@link Range}). */
    public static boolean numeric(ArgSpec arg) {
        Class<?> t = arg.type();
        return t.isPrimitive() && t != boolean.class && t != char.class || Number.class.isAssignableFrom(t);
    }

    /** Every command of the tree, depth first (for the test that every numeric option has a Range). */
    public static java.util.List<CommandLine> all(CommandLine root) {
        java.util.List<CommandLine> out = new java.util.ArrayList<>();
        out.add(root);
        for (CommandLine sub : root.getSubcommands().values()) {
            if (!out.contains(sub)) out.addAll(all(sub));
        }
        return out;
    }
}
