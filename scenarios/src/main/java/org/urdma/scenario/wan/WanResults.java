package org.urdma.scenario.wan;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.TreeSet;

/** The results of a WAN run: the paper-shaped table (a row per RTT × loss, a column per protocol), CSV out and back in. */
public final class WanResults {
    static final String CSV_HEADER = "rtt_ms,loss_percent,protocol,rate_gbps,goodput_gbps,fraction,bytes,seconds,retransmitted,"
        + "fec_repaired,verified,cpu_ns_per_byte,note";

    private final List<WanProtocol> protocols;
    private final List<WanCell> cells = new ArrayList<>();

    public WanResults(List<WanProtocol> protocols) {
        this.protocols = List.copyOf(protocols);
    }

    public void add(WanCell c) {
        cells.add(c);
    }

    public List<WanCell> cells() {
        return List.copyOf(cells);
    }

    public List<WanProtocol> protocols() {
        return protocols;
    }

    /** The cell of {@code protocol} at (rtt, loss), or null. */
    public WanCell cell(String protocol, double rttMs, double lossPercent) {
        for (WanCell c : cells) {
            if (c.protocol().equals(protocol) && c.rttMs() == rttMs && c.lossPercent() == lossPercent) {
                return c;
            }
        }
        return null;
    }

    public List<Double> rtts() {
        return new ArrayList<>(new TreeSet<>(cells.stream().map(WanCell::rttMs).toList()));
    }

    public List<Double> losses() {
        return new ArrayList<>(new TreeSet<>(cells.stream().map(WanCell::lossPercent).toList()));
    }

    /**
     * The paper's table: goodput as a fraction of the bottleneck, one column per protocol, then per protocol the
     * retransmitted / FEC-repaired packets, whether the data checked out, and the receiver's CPU per delivered byte.
     */
    public void printTable(PrintStream out) {
        StringBuilder h = new StringBuilder(String.format(Locale.ROOT, "%-8s %-8s", "RTT ms", "loss %"));
        for (WanProtocol p : protocols) {
            h.append(String.format(Locale.ROOT, " %20s", p.label()));
        }
        out.println("goodput / bottleneck");
        out.println(h);
        for (double rtt : rtts()) {
            for (double loss : losses()) {
                StringBuilder row = new StringBuilder(String.format(Locale.ROOT, "%-8s %-8s", num(rtt), num(loss)));
                for (WanProtocol p : protocols) {
                    WanCell c = cell(p.key(), rtt, loss);
                    String v = c == null ? "-" : String.format(Locale.ROOT, "%.3f (%.3f G)", c.fraction(), c.goodputGbps());
                    row.append(String.format(Locale.ROOT, " %20s", v));
                }
                out.println(row);
            }
        }
        out.println();
        out.println("retransmitted packets / FEC-repaired packets / data verified / receiver CPU ns per delivered byte");
        out.println(h);
        for (double rtt : rtts()) {
            for (double loss : losses()) {
                StringBuilder row = new StringBuilder(String.format(Locale.ROOT, "%-8s %-8s", num(rtt), num(loss)));
                for (WanProtocol p : protocols) {
                    WanCell c = cell(p.key(), rtt, loss);
                    String v = c == null ? "-" : String.format(Locale.ROOT, "%s/%s/%s/%s", count(c.retransmitted()),
                        count(c.fecRepaired()), c.verified() ? "ok" : "NO", Double.isNaN(c.cpuNsPerByte()) ? "-"
                            : String.format(Locale.ROOT, "%.2f", c.cpuNsPerByte()));
                    row.append(String.format(Locale.ROOT, " %20s", v));
                }
                out.println(row);
            }
        }
        for (WanCell c : cells) {
            if (!c.note().isEmpty()) {
                out.printf(Locale.ROOT, "note: %s at %s ms, %s %%: %s%n", c.protocol(), num(c.rttMs()), num(c.lossPercent()), c.note());
            }
        }
    }

    private static String count(long n) {
        return n < 0 ? "-" : Long.toString(n);
    }

    static String num(double d) {
        return d == Math.rint(d) ? Long.toString((long) d) : Double.toString(d);
    }

    public void writeCsv(Path file) throws IOException {
        List<String> lines = new ArrayList<>();
        lines.add(CSV_HEADER);
        for (WanCell c : cells) {
            lines.add(String.format(Locale.ROOT, "%s,%s,%s,%.6f,%.6f,%.6f,%d,%.3f,%d,%d,%b,%s,%s", num(c.rttMs()),
                num(c.lossPercent()), c.protocol(), c.rateGbps(), c.goodputGbps(), c.fraction(), c.bytes(), c.seconds(),
                c.retransmitted(), c.fecRepaired(), c.verified(), Double.isNaN(c.cpuNsPerByte()) ? ""
                    : String.format(Locale.ROOT, "%.4f", c.cpuNsPerByte()), c.note().replace(',', ';').replace('\n', ' ')));
        }
        Files.write(file, lines, StandardCharsets.UTF_8);
    }

    /** Reads a CSV {@link #writeCsv} wrote (the chart is drawn from it, so what the chart shows is what the file holds). */
    public static WanResults readCsv(Path file, List<WanProtocol> known) throws IOException {
        List<String> lines = Files.readAllLines(file, StandardCharsets.UTF_8);
        if (lines.isEmpty() || !lines.get(0).equals(CSV_HEADER)) {
            throw new IOException(file + ": not a WAN scenario CSV (first line must be: " + CSV_HEADER + ")");
        }
        List<WanCell> cells = new ArrayList<>();
        for (String line : lines.subList(1, lines.size())) {
            String[] f = line.split(",", -1);
            if (f.length != 13) {
                throw new IOException(file + ": line '" + line + "' has " + f.length + " fields, expected 13");
            }
            cells.add(new WanCell(f[2], Double.parseDouble(f[0]), Double.parseDouble(f[1]), Double.parseDouble(f[3]),
                Long.parseLong(f[6]), Double.parseDouble(f[7]), Long.parseLong(f[8]), Long.parseLong(f[9]),
                Boolean.parseBoolean(f[10]), f[11].isEmpty() ? Double.NaN : Double.parseDouble(f[11]), f[12]));
        }
        List<WanProtocol> present = known.stream().filter(p -> cells.stream().anyMatch(c -> c.protocol().equals(p.key()))).toList();
        WanResults r = new WanResults(present);
        cells.forEach(r::add);
        return r;
    }
}
