package org.urdma.scenario.wan;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import org.urdma.switchemu.rt.RtSwitchRunner;

/**
 * The URDMA paper's RTT × loss matrix through the real-time switch (root): per cell the switch restarts with the
 * cell's delay and loss, then each protocol runs in turn on the same path. Writes {@code wan.csv} and {@code wan.png}
 * into the output directory and prints the table.
 */
public final class WanScenario {
    /** What to run. */
    public record Plan(double rateGbps, List<Double> rttsMs, List<Double> lossesPercent, int seconds,
                       List<WanProtocol> protocols, Path outDir, long seed) {
    }

    private WanScenario() {
    }

    /** Kernel congestion controls the protocols need that this kernel does not offer (their rows are left out). */
    static List<String> missingCongestionControls(List<WanProtocol> protocols) throws IOException {
        Path p = Path.of("/proc/sys/net/ipv4/tcp_available_congestion_control");
        List<String> have = Files.exists(p) ? List.of(Files.readString(p).trim().split("\\s+")) : List.of();
        return protocols.stream().filter(x -> x.kind() == WanProtocol.Kind.TCP && !have.contains(x.congestionControl()))
            .map(WanProtocol::congestionControl).toList();
    }

    public static WanResults run(Plan plan, PrintStream out) throws Exception {
        List<String> missing = missingCongestionControls(plan.protocols());
        List<WanProtocol> protocols = plan.protocols().stream()
            .filter(x -> x.kind() != WanProtocol.Kind.TCP || !missing.contains(x.congestionControl())).toList();
        if (!missing.isEmpty()) {
            out.println("kernel TCP without " + String.join(", ", missing) + " (net.ipv4.tcp_available_congestion_control): "
                + "those rows are left out");
        }
        Files.createDirectories(plan.outDir());
        WanResults results = new WanResults(protocols);
        try (WanBed bed = WanBed.create(out)) {
            for (double rtt : plan.rttsMs()) {
                for (double loss : plan.lossesPercent()) {
                    WanPath path = new WanPath(plan.rateGbps(), rtt, loss);
                    for (WanProtocol p : protocols) {
                        WanCell c;
                        try (RtSwitchRunner sw = bed.startSwitch(path, plan.seed())) {
                            c = p.kind() == WanProtocol.Kind.TCP ? TcpStreamRun.run(bed, p, path, plan.seconds())
                                : UrdmaPerfRun.run(bed, p, path, plan.seconds());
                            String drops = delayLineDrops(sw);
                            if (Boolean.getBoolean("urdma.scenario.switchReport")) {
                                sw.close();
                                out.println(org.urdma.switchemu.rt.CounterReport.format(sw.sw(), ""));
                            }
                            if (!drops.isEmpty()) {
                                c = new WanCell(c.protocol(), c.rttMs(), c.lossPercent(), c.rateGbps(), c.bytes(), c.seconds(),
                                    c.retransmitted(), c.fecRepaired(), c.verified(), c.cpuNsPerByte(),
                                    (c.note().isEmpty() ? "" : c.note() + "; ") + drops);
                            }
                        }
                        results.add(c);
                        out.printf(Locale.ROOT, "RTT %s ms, loss %s %%: %-20s %.3f of %s Gbit/s, retransmitted %d%s%s%n",
                            WanResults.num(rtt), WanResults.num(loss), p.label(), c.fraction(), WanResults.num(plan.rateGbps()),
                            c.retransmitted(), c.verified() ? ", data verified" : ", data NOT verified",
                            c.note().isEmpty() ? "" : " (" + c.note() + ")");
                        out.flush();
                    }
                }
            }
        }
        out.println();
        results.printTable(out);
        Path csv = plan.outDir().resolve("wan.csv");
        results.writeCsv(csv);
        Path png = plan.outDir().resolve("wan.png");
        // drawn from the CSV just written, so the chart shows exactly what the file holds
        new WanChart(WanResults.readCsv(csv, protocols), String.format(Locale.ROOT,
            "goodput vs loss, bottleneck %s Gbit/s, %d s per run", WanResults.num(plan.rateGbps()), plan.seconds())).savePng(png);
        out.println("wrote " + csv + " and " + png);
        return results;
    }

    /** Frames the switch's delay line had no room for (it must hold RTT × R: if this is not empty, it did not). */
    private static String delayLineDrops(RtSwitchRunner sw) {
        long full = 0;
        for (int i = 0; i < sw.sw().portCount(); i++) {
            full += sw.sw().port(i).delayFull();
        }
        return full == 0 ? "" : "switch delay line full: " + full + " frames dropped";
    }
}
