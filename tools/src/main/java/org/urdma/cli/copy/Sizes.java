package org.urdma.cli.copy;

import java.util.Locale;

/** Byte sizes on the command line: a number with an optional K, M or G suffix (binary: 4M = 4 MiB). */
final class Sizes {
    private Sizes() {
    }

    static long parse(String option, String value) {
        String t = value.trim().toUpperCase(Locale.ROOT).replace("IB", "").replace("B", "");
        long unit = 1;
        if (t.endsWith("K")) unit = 1L << 10;
        else if (t.endsWith("M")) unit = 1L << 20;
        else if (t.endsWith("G")) unit = 1L << 30;
        if (unit != 1) t = t.substring(0, t.length() - 1);
        try {
            long v = Long.parseLong(t.trim());
            if (v <= 0) throw new NumberFormatException();
            return Math.multiplyExact(v, unit);
        } catch (NumberFormatException | ArithmeticException e) {
            throw new IllegalArgumentException(option + ": a size such as 64M or 1G, was '" + value + "'");
        }
    }
}
