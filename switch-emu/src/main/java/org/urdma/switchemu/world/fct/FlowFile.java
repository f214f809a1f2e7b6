package org.urdma.switchemu.world.fct;

import java.math.BigDecimal;
import java.util.Locale;

/**
 * HPCC's flow list ({@code simulation/mix/flow.txt}): the first line is the number of flows, then one flow per line,
 * {@code src dst priority dport size start}, hosts by number, size in bytes, start in seconds (e.g.
 * {@code 2.000001234}). Errors name the line.
 */
public final class FlowFile {
    private FlowFile() {
    }

    /** Reads {@code text} (from {@code source}, for messages) into flows over {@code hosts}, sorted by start. */
    public static Flows read(String text, String source, HostNumbers hosts) {
        String[] lines = text.split("\r?\n");
        int at = 0;
        while (at < lines.length && lines[at].isBlank()) at++;
        if (at == lines.length) throw new IllegalArgumentException(source + ": empty flow file");
        int count;
        try {
            count = Integer.parseInt(lines[at].trim());
            if (count < 0) throw new NumberFormatException();
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(source + ":" + (at + 1) + ": the first line is the number of flows, got '"
                    + lines[at].trim() + "'");
        }
        Flows f = new Flows();
        for (at++; at < lines.length && f.count() < count; at++) {
            String line = lines[at].trim();
            if (line.isEmpty()) continue;
            String[] x = line.split("\\s+");
            String where = source + ":" + (at + 1) + ": ";
            if (x.length != 6) throw new IllegalArgumentException(where + "a flow is: src dst priority dport size start, got '" + line + "'");
            try {
                int src = host(x[0], hosts, where, "src");
                int dst = host(x[1], hosts, where, "dst");
                long start = new BigDecimal(x[5]).movePointRight(9).setScale(0, java.math.RoundingMode.HALF_EVEN).longValueExact();
                f.add(src, dst, Integer.parseInt(x[2]), Integer.parseInt(x[3]), Long.parseLong(x[4]), start);
            } catch (NumberFormatException | ArithmeticException e) {
                throw new IllegalArgumentException(where + "not a number in '" + line + "'");
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException(e.getMessage().startsWith(source) ? e.getMessage() : where + e.getMessage());
            }
        }
        if (f.count() != count) {
            throw new IllegalArgumentException(source + ": the first line says " + count + " flows, the file has " + f.count());
        }
        return f.sorted();
    }

    private static int host(String x, HostNumbers hosts, String where, String what) {
        int i = hosts.index(Integer.parseInt(x));
        if (i < 0) throw new IllegalArgumentException(where + what + " " + x + " is not a host of the topology");
        return i;
    }

    /** The flows in HPCC's format (starts in seconds to the ns), readable by HPCC's simulator. */
    public static String write(Flows f, HostNumbers hosts) {
        StringBuilder sb = new StringBuilder().append(f.count()).append('\n');
        for (int i = 0; i < f.count(); i++) {
            long t = f.startNs(i);
            sb.append(String.format(Locale.ROOT, "%d %d %d %d %d %d.%09d%n", hosts.number(f.src(i)), hosts.number(f.dst(i)),
                    f.priority(i), f.dport(i), f.size(i), t / 1_000_000_000L, t % 1_000_000_000L));
        }
        return sb.toString();
    }
}
