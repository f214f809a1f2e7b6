package org.urdma.cli.scenario;

import java.io.PrintStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.urdma.scenario.wan.CpuHogs;
import org.urdma.scenario.wan.WanProtocol;
import org.urdma.scenario.wan.WanScenario;
import org.urdma.cli.Range;
import org.urdma.nativeio.netns.Privileges;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code urdma scenario wan}: the URDMA paper's RTT × loss matrix, kernel TCP against urdma, through the switch emulator. */
@Command(name = "wan", mixinStandardHelpOptions = true,
    description = "Goodput through a bottleneck of rate R with delay and random loss (the URDMA paper's RTT x loss matrix): "
        + "kernel TCP CUBIC and BBR, urdma RC go-back-N; a table, wan.csv and wan.png (goodput vs loss, a line per protocol, "
        + "a panel per RTT). As root: two namespaces joined through the real-time switch, whose impairment stage adds delay "
        + "and loss (this kernel has no netem).")
public final class WanScenarioCommand implements Callable<Integer> {
    /** What this machine sustains through the real-time switch (README: measured with TCP at 0 ms / 0 %). */
    public static final String DEFAULT_RATE = "1G";

    @Option(names = "--rate", paramLabel = "RATE", description = "Bottleneck rate, e.g. 1G, 500M (default: ${DEFAULT-VALUE})")
    String rate = DEFAULT_RATE;

    @Option(names = "--rtt", paramLabel = "MS,...", description = "Round-trip times in ms (default: ${DEFAULT-VALUE})")
    String rtt = "0,20,40,80";

    @Option(names = "--loss", paramLabel = "PERCENT,...", description = "Random loss rates in %% on the data direction "
        + "(default: ${DEFAULT-VALUE})")
    String loss = "0,0.01,0.1,1";

    @Range(min = 1, max = 3600)
    @Option(names = "--duration", paramLabel = "SECONDS", description = "Seconds per protocol and cell (default: ${DEFAULT-VALUE})")
    int duration = 10;

    @Option(names = "--out", paramLabel = "DIR", description = "Where wan.csv and wan.png go (default: ${DEFAULT-VALUE})")
    Path out = Path.of("scenario-wan");

    @Option(names = "--protocols", paramLabel = "NAME,...", description = "Rows to run (default: ${DEFAULT-VALUE}; also urdma-sack: WAN without FEC)")
    String protocols = String.join(",", WanProtocol.DEFAULT.stream().map(WanProtocol::key).toList());

    @Range(min = 0, max = 64)
    @Option(names = "--hogs", paramLabel = "N", description = "CPU hogs (yes > /dev/null) to run beside every cell, "
        + "started before the first and stopped after the last, so the contended case is reproducible (default: ${DEFAULT-VALUE})")
    int hogs = 0;

    @Range(min = Long.MIN_VALUE)
    @Option(names = "--seed", description = "Seed of the switch's loss decisions (default: ${DEFAULT-VALUE})")
    long seed = 1;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() throws Exception {
        double gbps = rateGbps(rate);
        List<Double> rtts = list("--rtt", rtt, 0, 1000);
        List<Double> losses = list("--loss", loss, 0, 100);
        List<WanProtocol> rows = WanProtocol.select(protocols);
        PrintStream out = System.out;
        try (CpuHogs cpuHogs = CpuHogs.start(hogs)) {
            if (!Privileges.isRoot()) {
                out.println("in-process: not root, so no namespaces; " + InProcessWan.WHAT + "; " + cpuHogs.describe());
                return InProcessWan.run(new WanScenario.Plan(gbps, rtts, losses, duration, rows, out(), seed), out);
            }
            out.printf(Locale.ROOT, "namespaces through the real-time switch: bottleneck %s Gbit/s, RTT %s ms, loss %s %%, %d s per run, "
                + "%s, %d cores%n", num(gbps), rtt, loss, duration, cpuHogs.describe(), Runtime.getRuntime().availableProcessors());
            WanScenario.run(new WanScenario.Plan(gbps, rtts, losses, duration, rows, out(), seed), out);
            return 0;
        }
    }

    private Path out() {
        return out;
    }

    private static final Pattern RATE = Pattern.compile("([0-9]+(?:\\.[0-9]+)?)\\s*([kKmMgG]?)(?:bit/s|bps|bit)?");

    /** "1G", "500M", "2.5G", "100000000" (bit/s) to Gbit/s; anything else is refused naming --rate. */
    static double rateGbps(String text) {
        Matcher m = RATE.matcher(text.strip());
        if (!m.matches()) {
            throw new IllegalArgumentException("--rate: a rate like 1G or 500M, was '" + text + "'");
        }
        double scale = switch (m.group(2).toLowerCase(Locale.ROOT)) {
            case "k" -> 1e3;
            case "m" -> 1e6;
            case "g" -> 1e9;
            default -> 1;
        };
        double gbps = Double.parseDouble(m.group(1)) * scale / 1e9;
        if (gbps < 0.001 || gbps > 100) {
            throw new IllegalArgumentException("--rate: must be 1M..100G, was '" + text + "'");
        }
        return gbps;
    }

    /** A comma-separated list of numbers within [min, max], or an error naming the option. */
    static List<Double> list(String option, String text, double min, double max) {
        List<Double> values = new ArrayList<>();
        for (String s : text.split(",")) {
            double v;
            try {
                v = Double.parseDouble(s.strip().replace("%", ""));
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException(option + ": '" + s.strip() + "' is not a number (a list like " + text + ")");
            }
            if (!(v >= min && v <= max)) {
                throw new IllegalArgumentException(option + ": " + s.strip() + " must be " + num(min) + ".." + num(max));
            }
            if (values.contains(v)) {
                throw new IllegalArgumentException(option + ": " + s.strip() + " is given twice");
            }
            values.add(v);
        }
        return values;
    }

    static String num(double d) {
        return d == Math.rint(d) ? Long.toString((long) d) : Double.toString(d);
    }
}
