package org.urdma.transport.impair;

import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The {@code tc qdisc ... netem} arguments that ask the kernel for an {@link ImpairmentConfig}: the same
 * parameters, in tc's syntax (times in µs, probabilities in %, rate in bit/s). Kept beside the config
 * because it reads the config's fields.
 */
public final class NetemArgs {
    private NetemArgs() {
    }

    /** The words after {@code netem} (empty for a config that does nothing). */
    public static List<String> of(ImpairmentConfig c) {
        if (c.dropEveryNth > 0) {
            throw new IllegalArgumentException("impairment dropEveryNth: tc netem has no deterministic drop of every n-th frame");
        }
        List<String> a = new ArrayList<>();
        if (c.delayNs > 0 || c.jitterNs > 0) {
            a.add("delay");
            a.add(time(c.delayNs));
            if (c.jitterNs > 0 || c.delayCorrelation > 0) {
                a.add(time(c.jitterNs));
                if (c.delayCorrelation > 0) {
                    a.add(percent(c.delayCorrelation));
                }
            }
        }
        double[] l = c.lossParams;
        switch (c.lossModel) {
            case NONE -> { }
            case RANDOM -> {
                a.addAll(List.of("loss", "random", percent(c.loss)));
                if (c.lossCorrelation > 0) {
                    a.add(percent(c.lossCorrelation));
                }
            }
            // netem: loss gemodel p [r [1-h [1-k]]]
            case GILBERT_ELLIOTT -> a.addAll(List.of("loss", "gemodel", percent(l[0]), percent(l[1]), percent(l[2]),
                percent(l[3])));
            // netem: loss state p13 [p31 [p32 [p23 [p14]]]]
            case FOUR_STATE -> a.addAll(List.of("loss", "state", percent(l[0]), percent(l[1]), percent(l[2]),
                percent(l[3]), percent(l[4])));
        }
        probability(a, "duplicate", c.duplicate, c.duplicateCorrelation);
        if (c.reorder > 0) {
            probability(a, "reorder", c.reorder, c.reorderCorrelation);
            if (c.gap > 0) {
                a.addAll(List.of("gap", Integer.toString(c.gap)));
            }
        }
        probability(a, "corrupt", c.corrupt, c.corruptCorrelation);
        if (c.rateBps > 0) {
            a.addAll(List.of("rate", c.rateBps + "bit"));
        }
        return a;
    }

    private static void probability(List<String> a, String what, double p, double correlation) {
        if (p > 0) {
            a.add(what);
            a.add(percent(p));
            if (correlation > 0) {
                a.add(percent(correlation));
            }
        }
    }

    /** Microseconds, exact (tc parses fractions: 1.5us). */
    static String time(long ns) {
        return plain(BigDecimal.valueOf(ns).movePointLeft(3)) + "us";
    }

    static String percent(double fraction) {
        return plain(new BigDecimal(Double.toString(fraction)).movePointRight(2)) + "%";
    }

    private static String plain(BigDecimal d) {
        BigDecimal s = d.stripTrailingZeros();
        return (s.scale() < 0 ? s.setScale(0) : s).toPlainString().toLowerCase(Locale.ROOT);
    }
}
