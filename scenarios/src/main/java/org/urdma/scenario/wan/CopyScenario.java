package org.urdma.scenario.wan;

import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.urdma.switchemu.rt.RtSwitchRunner;

/**
 * The copy tools side by side on the WAN scenario's path (root): h1 – s1 – h2 through the real-time switch, a matrix of
 * RTT × loss, per cell and workload the tool rows one after another (each checked by {@code sha256sum -c} at the
 * destination), and per cell the ceilings {@code urdma perf write-bw --wan} and {@code iperf3 -C bbr}. The switch
 * restarts per row with the cell's delay and loss. Writes {@code copy.csv} and {@code copy.png} and prints the table.
 */
public final class CopyScenario {
    /** What to run. */
    public record Plan(double rateGbps, List<Double> rttsMs, List<Double> lossesPercent, List<CopyWorkload> workloads,
                       List<CopyRow> rows, CopyWorkload.Sizes sizes, int ceilingSeconds, int timeoutSeconds, Path outDir, long seed) {
    }

    private CopyScenario() {
    }

    public static CopyResults run(Plan plan, PrintStream out) throws Exception {
        Files.createDirectories(plan.outDir());
        CopyResults results = new CopyResults();
        Path work = Files.createTempDirectory("urdma-scenario-copy");
        try (WanBed bed = WanBed.create(out); SshBed ssh = needsSsh(plan.rows()) ? startSsh(bed, plan) : null) {
            List<CopyWorkload.Made> made = new ArrayList<>();
            for (CopyWorkload w : plan.workloads()) {
                CopyWorkload.Made m = w.make(work.resolve(w.key()), plan.sizes());
                made.add(m);
                out.printf(Locale.ROOT, "workload %s: %s, %d file(s), %d payload bytes%n", w.key(), w.label(), m.files(), m.payloadBytes());
            }
            Path dst = work.resolve("dst");
            for (double rtt : plan.rttsMs()) {
                for (double loss : plan.lossesPercent()) {
                    WanPath path = new WanPath(plan.rateGbps(), rtt, loss);
                    for (int i = 0; i < plan.workloads().size(); i++) {
                        CopyWorkload w = plan.workloads().get(i);
                        for (CopyRow r : plan.rows()) {
                            if (r.ceiling() || !r.runsFor(w)) {
                                continue;
                            }
                            CopyCell c;
                            try (RtSwitchRunner sw = bed.startSwitch(path, plan.seed())) {
                                c = CopyRowRun.run(bed, ssh, r, w, made.get(i), path, dst, plan.timeoutSeconds());
                            }
                            report(results, c, out);
                        }
                    }
                    for (CopyRow r : plan.rows()) {
                        if (!r.ceiling()) {
                            continue;
                        }
                        CopyCell c;
                        try (RtSwitchRunner sw = bed.startSwitch(path, plan.seed())) {
                            c = r == CopyRow.PERF_WAN ? CopyRowRun.perfCeiling(bed, path, plan.ceilingSeconds())
                                : CopyRowRun.iperfCeiling(bed, path, plan.ceilingSeconds());
                        }
                        report(results, c, out);
                    }
                }
            }
        } finally {
            SshBed.deleteTree(work);
        }
        out.println();
        results.printTable(out);
        Path csv = plan.outDir().resolve("copy.csv");
        results.writeCsv(csv);
        Path png = plan.outDir().resolve("copy.png");
        // drawn from the CSV just written, so the chart shows exactly what the file holds
        CopyResults.readCsv(csv).savePng(png, String.format(Locale.ROOT, "copy tools, bottleneck %s Gbit/s",
            WanResults.num(plan.rateGbps())));
        out.println("wrote " + csv + " and " + png);
        return results;
    }

    /** The sshd in h2, its first login tried through a switch without delay or loss (h1 reaches h2 only through one). */
    private static SshBed startSsh(WanBed bed, Plan plan) throws Exception {
        try (RtSwitchRunner sw = bed.startSwitch(new WanPath(plan.rateGbps(), 0, 0), plan.seed())) {
            return SshBed.start(bed);
        }
    }

    private static boolean needsSsh(List<CopyRow> rows) {
        return rows.contains(CopyRow.SCP) || rows.contains(CopyRow.RSYNC) || rows.contains(CopyRow.TAR_SSH);
    }

    private static void report(CopyResults results, CopyCell c, PrintStream out) {
        results.add(c);
        CopyRow r = CopyRow.of(c.row());
        out.printf(Locale.ROOT, "RTT %s ms, loss %s %%, %s: %-36s %.2f s, %.3f of R%s%s%n", WanResults.num(c.rttMs()),
            WanResults.num(c.lossPercent()), c.workload(), r.label(), c.seconds(), c.fraction(), c.verified() ? ", verified" : ", NOT verified",
            c.note().isEmpty() ? "" : " (" + c.note() + ")");
        out.flush();
    }
}
