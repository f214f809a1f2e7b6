package org.urdma.transport.rate;

import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/**
 * The {@code key=value,...} options after a policy's name ({@code dcqcn:line=25g,rpTimer=55}), parsed once when a
 * factory is made, never on the data path. Every key must be used: an unknown key is an error naming it.
 */
final class PolicySpec {
    private final String policy;
    private final Map<String, String> values = new LinkedHashMap<>();

    private PolicySpec(String policy) {
        this.policy = policy;
    }

    /** Options of {@code policy} from {@code text} (what follows "name:", or null/empty for none). */
    static PolicySpec parse(String policy, String text) {
        PolicySpec s = new PolicySpec(policy);
        if (text == null || text.isBlank()) return s;
        for (String part : text.split(",")) {
            int eq = part.indexOf('=');
            if (eq <= 0 || eq == part.length() - 1) {
                throw new IllegalArgumentException("cc: " + policy + " option '" + part.trim() + "' is not key=value");
            }
            String key = part.substring(0, eq).trim().toLowerCase(Locale.ROOT);
            if (s.values.put(key, part.substring(eq + 1).trim()) != null) {
                throw new IllegalArgumentException("cc: " + policy + " option '" + key + "' given twice");
            }
        }
        return s;
    }

    private String take(String key) {
        return values.remove(key.toLowerCase(Locale.ROOT));
    }

    /** A rate in bit/s ({@code 25g}, {@code 100m}, {@code 1.5g}, {@code 40000000}); {@code dflt} when absent. */
    long rate(String key, long dflt) {
        String v = take(key);
        return v == null ? dflt : parseRate(policy + " " + key, v);
    }

    double number(String key, double dflt) {
        String v = take(key);
        if (v == null) return dflt;
        try {
            return Double.parseDouble(v);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("cc: " + policy + " " + key + " must be a number, was '" + v + "'");
        }
    }

    long whole(String key, long dflt) {
        String v = take(key);
        if (v == null) return dflt;
        try {
            return Long.parseLong(v);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("cc: " + policy + " " + key + " must be a whole number, was '" + v + "'");
        }
    }

    boolean flag(String key, boolean dflt) {
        String v = take(key);
        if (v == null) return dflt;
        if (v.equalsIgnoreCase("true")) return true;
        if (v.equalsIgnoreCase("false")) return false;
        throw new IllegalArgumentException("cc: " + policy + " " + key + " must be true or false, was '" + v + "'");
    }

    /** Call after every option was read: refuses what is left. */
    void done() {
        if (!values.isEmpty()) {
            throw new IllegalArgumentException("cc: " + policy + " has no option '" + values.keySet().iterator().next() + "'");
        }
    }

    /** Bits per second from {@code 25g}, {@code 100m}, {@code 10k}, {@code 1t} or a plain number; {@code field} names it in errors. */
    static long parseRate(String field, String text) {
        String s = text.trim().toLowerCase(Locale.ROOT);
        if (s.endsWith("bit/s")) s = s.substring(0, s.length() - 5);
        else if (s.endsWith("bps")) s = s.substring(0, s.length() - 3);
        double unit = 1;
        if (!s.isEmpty()) {
            switch (s.charAt(s.length() - 1)) {
                case 'k' -> unit = 1e3;
                case 'm' -> unit = 1e6;
                case 'g' -> unit = 1e9;
                case 't' -> unit = 1e12;
                default -> { }
            }
            if (unit != 1) s = s.substring(0, s.length() - 1);
        }
        double v;
        try {
            v = Double.parseDouble(s) * unit;
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("cc: " + field + " must be a rate like 25g or 100m, was '" + text + "'");
        }
        if (!(v >= 1) || v > 1e13) {
            throw new IllegalArgumentException("cc: " + field + " must be 1 bit/s..10 Tbit/s, was '" + text + "'");
        }
        return Math.round(v);
    }
}
