package org.urdma.cli.scenario;

import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import org.urdma.scenario.wan.WanCell;
import org.urdma.scenario.wan.WanChart;
import org.urdma.scenario.wan.WanProtocol;
import org.urdma.scenario.wan.WanResults;
import org.urdma.cli.Range;
import org.urdma.scenario.world.WanSim;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code urdma scenario wan-sim}: the URDMA paper's RTT × loss matrix at 100 Gbit/s in simulated time. */
@Command(name = "wan-sim", mixinStandardHelpOptions = true,
    description = "The URDMA paper's RTT x loss matrix in the simulated world (real engines, one switch, described payloads): "
        + "two hosts at the bottleneck rate, RTT/2 each way, random loss on the data direction, one RC WRITE stream per "
        + "row (go-back-0, go-back-N, SACK, SACK+FEC, SACK+FEC+RRCC); a table, DIR/wan-sim.csv and DIR/wan-sim.png "
        + "(goodput vs loss, a line per row, a panel per RTT).")
public final class WanSimCommand implements Callable<Integer> {
    @Option(names = "--rate", paramLabel = "RATE", description = "Bottleneck rate, e.g. 100G, 10G (default: ${DEFAULT-VALUE})")
    String rate = "100G";

    @Option(names = "--rtt", paramLabel = "MS,...", description = "Round-trip times in ms (default: ${DEFAULT-VALUE})")
    String rtt = "20,40,80";

    @Option(names = "--loss", paramLabel = "PERCENT,...", description = "Random loss in %% on the data direction (default: ${DEFAULT-VALUE})")
    String loss = "0.01,0.1,1";

    @Range(min = 1, max = 100_000)
    @Option(names = "--sim-ms", paramLabel = "MS", description = "Measured simulated ms per cell, after a warm-up of 2 RTTs "
        + "(default: ${DEFAULT-VALUE})")
    double simMs = 200;

    @Option(names = "--rows", paramLabel = "NAME,...", description = "Rows to run (default: all: ${DEFAULT-VALUE})")
    String rows = String.join(",", WanSim.ROWS.stream().map(WanSim.Row::name).toList());

    @Range(min = Long.MIN_VALUE)
    @Option(names = "--seed", description = "Seed of the world (default: ${DEFAULT-VALUE})")
    long seed = 1;

    @Option(names = "--out", paramLabel = "DIR", description = "Where wan-sim.csv and wan-sim.png go (default: ${DEFAULT-VALUE})")
    Path out = Path.of("scenario-wan-sim");

    @Override
    public Integer call() throws Exception {
        double gbps = WanScenarioCommand.rateGbps(rate);
        WanSim.Options o = new WanSim.Options(Math.round(gbps * 1e9), WanScenarioCommand.list("--rtt", rtt, 0, 1000),
            WanScenarioCommand.list("--loss", loss, 0, 99), Math.round(simMs * 1e6), WanSim.rows(rows), seed);
        List<WanProtocol> protocols = o.rows().stream().map(r -> WanProtocol.urdma(r.name(), r.name())).toList();
        WanResults results = new WanResults(protocols);
        PrintStream p = System.out;
        p.printf(Locale.ROOT, "simulated world: %s Gbit/s bottleneck, RTT %s ms, loss %s %%, %s ms measured per cell, seed %d%n",
            num(gbps), rtt, loss, num(simMs), seed);
        for (double r : o.rttsMs()) {
            for (double l : o.lossesPercent()) {
                for (WanSim.Row row : o.rows()) {
                    WanSim.Cell c = WanSim.cell(o, row, r, l);
                    results.add(new WanCell(c.row(), r, l, gbps, c.bytes(), c.measuredNs() / 1e9, c.retransmitted(),
                        c.fecRepaired(), c.verified(), Double.NaN, c.note()));
                    p.printf(Locale.ROOT, "RTT %s ms, loss %s %%: %-14s [%s] %7.2f Gbit/s (%.3f), resent %d, drops %d, %s, wall %.1f s%s%n",
                        num(r), num(l), c.row(), c.policies(), c.goodputGbps(), c.fraction(), c.retransmitted(), c.drops(),
                        c.verified() ? "verified" : "NOT verified", c.wallNs() / 1e9, c.note().isEmpty() ? "" : " (" + c.note() + ")");
                }
            }
        }
        p.println();
        results.printTable(p);
        Files.createDirectories(out);
        Path csv = out.resolve("wan-sim.csv");
        results.writeCsv(csv);
        Path png = out.resolve("wan-sim.png");
        new WanChart(WanResults.readCsv(csv, protocols), String.format(Locale.ROOT,
            "simulated: %s Gbit/s bottleneck, RC WRITE, %s ms measured per cell, seed %d", num(gbps), num(simMs), seed)).savePng(png);
        p.println("wrote " + csv + " and " + png);
        return 0;
    }

    private static String num(double d) {
        return d == Math.rint(d) ? Long.toString((long) d) : Double.toString(d);
    }
}
