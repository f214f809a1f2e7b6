package org.urdma.switchemu.topo;

import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Numbers with units as written in topology files: rates, durations, sizes, fractions. */
final class Units {
    private static final Pattern NUMBER_UNIT = Pattern.compile("([0-9]+(?:\\.[0-9]+)?(?:[eE][-+]?[0-9]+)?)\\s*([a-zA-Z%/]*)");

    private Units() {
    }

    private static Matcher match(String text, String what) {
        Matcher m = NUMBER_UNIT.matcher(text.trim());
        if (!m.matches()) {
            throw new IllegalArgumentException("expected " + what + ", got '" + text + "'");
        }
        return m;
    }

    /** "10G", "10Gbps", "100Mbit", "2.5e9" → bit/s. */
    static long rateBps(String text) {
        Matcher m = match(text, "a rate like 10G or 100Mbps");
        double v = Double.parseDouble(m.group(1));
        String unit = m.group(2).toLowerCase(Locale.ROOT).replace("bps", "").replace("bit/s", "").replace("bit", "");
        double scale = switch (unit) {
            case "" -> 1;
            case "k" -> 1e3;
            case "m" -> 1e6;
            case "g" -> 1e9;
            case "t" -> 1e12;
            default -> throw new IllegalArgumentException("unknown rate unit '" + m.group(2) + "' (use bps, K, M, G, T)");
        };
        long bps = Math.round(v * scale);
        if (bps <= 0) {
            throw new IllegalArgumentException("rate must be > 0, got '" + text + "'");
        }
        return bps;
    }

    /** "300ns", "1us", "10ms", "2s", plain numbers are ns. */
    static long nanos(String text) {
        Matcher m = match(text, "a duration like 300ns, 1us, 10ms or 2s");
        double v = Double.parseDouble(m.group(1));
        double scale = switch (m.group(2).toLowerCase(Locale.ROOT)) {
            case "", "ns" -> 1;
            case "us", "µs" -> 1e3;
            case "ms" -> 1e6;
            case "s" -> 1e9;
            default -> throw new IllegalArgumentException("unknown time unit '" + m.group(2) + "' (use ns, us, ms, s)");
        };
        return Math.round(v * scale);
    }

    /** "1500", "32KB" (1000), "4MB", "64KiB" (1024), "4MiB" → bytes. */
    static long bytes(String text) {
        Matcher m = match(text, "a size like 1500, 32KB or 4MiB");
        double v = Double.parseDouble(m.group(1));
        double scale = switch (m.group(2).toLowerCase(Locale.ROOT)) {
            case "", "b" -> 1;
            case "kb", "k" -> 1e3;
            case "mb", "m" -> 1e6;
            case "gb", "g" -> 1e9;
            case "kib" -> 1024;
            case "mib" -> 1024 * 1024;
            case "gib" -> 1024.0 * 1024 * 1024;
            default -> throw new IllegalArgumentException("unknown size unit '" + m.group(2) + "' (use B, KB, MB, KiB, MiB)");
        };
        return Math.round(v * scale);
    }

    /** "0.1%" → 0.001; a bare number is a fraction (0.001). Must be within 0..1. */
    static double fraction(String text) {
        Matcher m = match(text, "a probability like 0.1% or 0.001");
        double v = Double.parseDouble(m.group(1));
        if (m.group(2).equals("%")) {
            v /= 100;
        } else if (!m.group(2).isEmpty()) {
            throw new IllegalArgumentException("a probability is a fraction or a percentage, got '" + text + "'");
        }
        if (v < 0 || v > 1) {
            throw new IllegalArgumentException("probability must be within 0..100%, got '" + text + "'");
        }
        return v;
    }
}
