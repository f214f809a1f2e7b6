package org.urdma.cli.scenario;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.urdma.scenario.wan.WanCell;
import org.urdma.scenario.wan.WanChart;
import org.urdma.scenario.wan.WanProtocol;
import org.urdma.scenario.wan.WanResults;
import org.urdma.scenario.wan.WanScenario;
import org.urdma.cli.UrdmaCli;

/**
 * The WAN scenario without root: the urdma rows as {@code urdma perf ... --link memory} in this process, the memory
 * link serializing at R with half the RTT each way and the loss on the data direction (it also paces the sender by
 * back-pressure, so perftest's --rate_limit, a real-link option, is left out). Kernel TCP needs the namespaces: its
 * rows are not run.
 */
final class InProcessWan {
    static final String WHAT = "urdma rows over the in-memory link (rate R, RTT/2 each way, loss on the data direction; "
        + "not the switch emulator); kernel TCP rows need root and are not run";
    private static final Pattern ROW = Pattern.compile("(?m)^\\s*(\\d+)\\s+(\\d+)\\s+([0-9.]+)\\s+([0-9.]+)\\s+([0-9.]+)\\s*$");
    private static final Pattern RESENT = Pattern.compile("retransmitted (\\d+)");
    private static final Pattern FEC = Pattern.compile("FEC-repaired (\\d+)");
    private static final Pattern VERIFIED = Pattern.compile("verified: (\\d+) bytes match");

    private InProcessWan() {
    }

    static int run(WanScenario.Plan plan, PrintStream out) throws Exception {
        List<WanProtocol> rows = plan.protocols().stream().filter(p -> p.kind() == WanProtocol.Kind.URDMA).toList();
        WanResults results = new WanResults(rows);
        for (double rtt : plan.rttsMs()) {
            for (double loss : plan.lossesPercent()) {
                for (WanProtocol p : rows) {
                    WanCell c = cell(p, plan, rtt, loss);
                    results.add(c);
                    out.printf(Locale.ROOT, "RTT %s ms, loss %s %%: %-20s %.3f of the bottleneck%s%n", fmt(rtt), fmt(loss), p.label(),
                        c.fraction(), c.note().isEmpty() ? "" : " (" + c.note() + ")");
                }
            }
        }
        out.println();
        results.printTable(out);
        Files.createDirectories(plan.outDir());
        Path csv = plan.outDir().resolve("wan.csv");
        results.writeCsv(csv);
        Path png = plan.outDir().resolve("wan.png");
        new WanChart(WanResults.readCsv(csv, rows), String.format(Locale.ROOT, "in-process, memory link at %s Gbit/s, %d s per run",
            fmt(plan.rateGbps()), plan.seconds())).savePng(png);
        out.println("wrote " + csv + " and " + png);
        return 0;
    }

    private static WanCell cell(WanProtocol p, WanScenario.Plan plan, double rtt, double loss) {
        List<String> args = new ArrayList<>(List.of("perf"));
        List<String> own = p.perfArgs(plan.rateGbps());
        for (int i = 0; i < own.size(); i++) {
            if (own.get(i).equals("--rate_limit") || own.get(i).equals("--rate_units")) {
                i++; // a real-link option: the memory link's serialization paces instead
            } else {
                args.add(own.get(i));
            }
        }
        // slots for a bandwidth-delay product of 4 KiB frames each way, and some
        long inFlight = (long) (plan.rateGbps() * 1e9 / 8 * Math.max(rtt, 1) / 1e3 / 4096) + 256;
        int slots = Integer.highestOneBit((int) Math.min(1 << 20, inFlight * 2 - 1)) * 2;
        args.addAll(List.of("--link", "memory", "-D", String.valueOf(plan.seconds()), "-s", "65536", "-t", "512", "--report_gbits",
            "--link-gbit", String.format(Locale.ROOT, "%.3f", plan.rateGbps()), "--link-delay-us",
            String.valueOf(Math.round(rtt * 500)), "--link-slots", String.valueOf(slots), "--loss",
            String.format(Locale.ROOT, "%.6f", loss / 100), "--timeout", "18"));
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        picocli.CommandLine cl = UrdmaCli.commandLine();
        cl.setOut(new PrintWriter(bytes, true, StandardCharsets.UTF_8));
        cl.setErr(new PrintWriter(err, true, StandardCharsets.UTF_8));
        PrintStream saved = System.out;
        int rc;
        try (PrintStream capture = new PrintStream(bytes, true, StandardCharsets.UTF_8)) {
            System.setOut(capture); // perf prints to System.out
            rc = cl.execute(args.toArray(String[]::new));
        } finally {
            System.setOut(saved);
        }
        String o = bytes.toString(StandardCharsets.UTF_8);
        Matcher row = ROW.matcher(o);
        double gbps = row.find() ? Double.parseDouble(row.group(4)) : 0;
        Matcher resent = RESENT.matcher(o);
        Matcher fec = FEC.matcher(o);
        String note = rc == 0 ? "" : "perf exited " + rc + ": " + err.toString(StandardCharsets.UTF_8).strip();
        return new WanCell(p.key(), rtt, loss, plan.rateGbps(), (long) (gbps * 1e9 / 8 * plan.seconds()), plan.seconds(),
            resent.find() ? Long.parseLong(resent.group(1)) : -1, fec.find() ? Long.parseLong(fec.group(1)) : -1, rc == 0 && VERIFIED.matcher(o).find(), Double.NaN, note);
    }

    private static String fmt(double d) {
        return d == Math.rint(d) ? Long.toString((long) d) : Double.toString(d);
    }
}
