package org.urdma.cli.scenario;

import java.io.PrintWriter;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import org.urdma.scenario.chart.FctChart;
import org.urdma.cli.Range;
import org.urdma.switchemu.topo.HpccTopologyFile;
import org.urdma.switchemu.topo.Topology;
import org.urdma.switchemu.topo.TopologyParser;
import org.urdma.switchemu.world.fct.FlowFile;
import org.urdma.switchemu.world.fct.FlowGenerator;
import org.urdma.switchemu.world.fct.FlowSizeCdf;
import org.urdma.switchemu.world.fct.Flows;
import org.urdma.switchemu.world.fct.HostNumbers;
import org.urdma.scenario.world.Fct;
import org.urdma.scenario.world.ResultTable;
import org.urdma.transport.rate.RateControl;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/** {@code urdma scenario fct}: flow completion times of a flow workload on a fabric, per congestion control. */
@Command(name = "fct", mixinStandardHelpOptions = true,
    description = {"Flow completion times and slowdowns of a flow workload in the simulated world.",
        "Each flow is an RC WRITE on a QP pooled per host pair, on a topology (YAML, or HPCC's text format), from a",
        "flow list (HPCC's flow.txt) or a generated load (a flow-size CDF,",
        "Poisson arrivals, optional N:1 incast). Once per --cc: DIR/fct.txt (fct_CC.txt when several; HPCC's format, read",
        "by its fct_analysis.py), DIR/fct.csv, DIR/slowdown.csv and DIR/slowdown.png (p50/p95/p99 slowdown per flow-size",
        "group, a line per CC); DIR/flow.txt holds the flows run. Prints the table, events/s and peak memory."})
public final class FctCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Option(names = "--topology", required = true, paramLabel = "FILE", description = "topology YAML or HPCC topology text")
    Path topology;

    @ArgGroup(exclusive = true, multiplicity = "1")
    Source source;

    static final class Source {
        @Option(names = "--flows", paramLabel = "FILE", description = "an HPCC flow list: count, then 'src dst priority dport size start_s'")
        Path flows;

        @Option(names = "--workload", paramLabel = "CDF", description = "a flow-size CDF file ('size percentile' lines) or a shipped one: websearch, fb_hadoop")
        String workload;
    }

    @Range(min = 0.001, max = 1)
    @Option(names = "--load", defaultValue = "0.3", description = "offered load per host, a fraction of its link rate (default ${DEFAULT-VALUE})")
    double load;

    @Range(min = 0.001, max = 100_000)
    @Option(names = "--duration-ms", defaultValue = "1", description = "how long flows arrive, ms (default ${DEFAULT-VALUE})")
    double durationMs;

    @Option(names = "--incast", paramLabel = "N:SIZE:SHARE", description = "an incast process: N senders to one, SIZE bytes each, SHARE of the load (e.g. 16:64000:0.1)")
    String incast;

    @Option(names = "--cc", split = ",", defaultValue = "dcqcn", description = "congestion controls to compare, e.g. none,dcqcn,dctcp,timely,hpcc (each but hpcc also +w; hpcc turns on every switch's in-band telemetry) (default ${DEFAULT-VALUE})")
    List<String> cc;

    @Range
    @Option(names = "--seed", defaultValue = "1", description = "seed of the load and the world (default ${DEFAULT-VALUE})")
    long seed;

    @Range(oneOf = {256, 512, 1024, 2048, 4096})
    @Option(names = "--mtu", defaultValue = "1024", description = "path MTU (default ${DEFAULT-VALUE})")
    int mtu;

    @Range(min = 1, max = 50, integer = true)
    @Option(names = "--step", defaultValue = "5", description = "flow-size group, percent of the flows (default ${DEFAULT-VALUE}, as fct_analysis.py)")
    int step;

    @Range(min = 0.001, max = 1_000_000)
    @Option(names = "--until-ms", description = "stop the clock here (default: 1 s after the last flow starts)")
    Double untilMs;

    @Option(names = "--real-bytes", description = "carry and check real payload bytes (default: described payloads, for scale)")
    boolean realBytes;

    @Option(names = "--out", paramLabel = "DIR", defaultValue = "scenario-fct", description = "where results go: fct.txt, fct.csv, the table and chart, and the fabric telemetry in telemetry/ (telemetry_CC/ per CC when several) (default ${DEFAULT-VALUE})")
    Path out;

    @Mixin
    TelemetryOptions telemetry;

    /** Flows start here, as HPCC's traffic generator starts them (2 s). */
    private static final long START_NS = 2_000_000_000L;

    @Override
    public Integer call() throws Exception {
        String text = Files.readString(topology);
        Topology t = HpccTopologyFile.looksLike(text) ? HpccTopologyFile.read(text, topology.toString())
                : TopologyParser.parse(text, topology.toString());
        List<String> names = new ArrayList<>(t.hosts().keySet());
        HostNumbers numbers = new HostNumbers(names);
        for (String c : cc) {
            try {
                RateControl.named(c);
            } catch (IllegalArgumentException e) {
                throw new ParameterException(spec.commandLine(), "--cc: " + e.getMessage());
            }
        }
        Flows flows;
        String what;
        if (source.flows != null) {
            flows = FlowFile.read(Files.readString(source.flows), source.flows.toString(), numbers);
            what = source.flows.getFileName().toString();
        } else {
            flows = generate(t, names);
            what = String.format(Locale.ROOT, "%s at %.0f %% load for %s ms%s", source.workload, load * 100, fmt(durationMs),
                    incast == null ? "" : ", incast " + incast);
        }
        Files.createDirectories(out);
        Files.writeString(out.resolve("flow.txt"), FlowFile.write(flows, numbers));
        PrintWriter o = spec.commandLine().getOut();
        List<Fct.Run> runs = new ArrayList<>();
        StringBuilder csv = new StringBuilder();
        var threads = ManagementFactory.getThreadMXBean();
        for (String c : cc) {
            long wall = System.nanoTime();
            long cpu = threads.getCurrentThreadCpuTime();
            Fct.Run r = Fct.run(t, flows, c, seed, mtu, realBytes, untilMs == null ? 0 : START_NS + (long) (untilMs * 1e6),
                    telemetry.options());
            double seconds = (System.nanoTime() - wall) / 1e9;
            double cpuSeconds = (threads.getCurrentThreadCpuTime() - cpu) / 1e9;
            runs.add(r);
            String tag = c.replaceAll("[^A-Za-z0-9_.=+-]", "_");
            Files.writeString(out.resolve(cc.size() == 1 ? "fct.txt" : "fct_" + tag + ".txt"), r.fctText());
            TelemetryOptions.write(out.resolve(cc.size() == 1 ? "telemetry" : "telemetry_" + tag), r.telemetry());
            String[] lines = r.csv().split("\n");
            if (csv.isEmpty()) csv.append("cc,").append(lines[0]).append('\n');
            for (int i = 1; i < lines.length; i++) csv.append('"').append(c).append("\",").append(lines[i]).append('\n');
            o.printf(Locale.ROOT, "%s: %d flows in %.1f s wall, %.1f s CPU, %d events, %.0f events/s (%.0f per CPU-second), peak memory %s%n",
                    c, flows.count(), seconds, cpuSeconds, r.events(), r.events() / Math.max(seconds, 1e-9),
                    r.events() / Math.max(cpuSeconds, 1e-9), peakMemory());
            o.flush();
        }
        Files.writeString(out.resolve("fct.csv"), csv.toString());
        ResultTable table = Fct.table(String.format(Locale.ROOT, "fct: %s, %s (%d hosts, %d switches), %d flows, seed %d",
                what, topology.getFileName(), t.hosts().size(), t.switches().size(), flows.count(), seed), runs, step);
        o.print(table.text());
        Files.writeString(out.resolve("slowdown.csv"), table.csv());
        new FctChart(runs, step, "slowdown vs flow size: " + what + " on " + topology.getFileName()).save(out.resolve("slowdown.png"));
        o.println("wrote " + out.resolve("fct.csv") + ", flow.txt, " + (cc.size() == 1 ? "fct.txt" : "fct_CC.txt") + ", slowdown.csv, slowdown.png");
        o.flush();
        return 0;
    }

    private Flows generate(Topology t, List<String> names) throws Exception {
        FlowSizeCdf cdf = FlowSizeCdf.shipped(source.workload);
        if (cdf == null) {
            Path p = Path.of(source.workload);
            if (!Files.exists(p)) {
                throw new ParameterException(spec.commandLine(), "--workload: no file '" + source.workload + "' and not a shipped CDF "
                        + FlowSizeCdf.SHIPPED);
            }
            cdf = FlowSizeCdf.parse(Files.readString(p), p.toString());
        }
        int senders = 0;
        long size = 0;
        double share = 0;
        if (incast != null) {
            String[] x = incast.split(":");
            try {
                if (x.length != 3) throw new NumberFormatException();
                senders = Integer.parseInt(x[0]);
                size = Long.parseLong(x[1]);
                share = Double.parseDouble(x[2]);
            } catch (NumberFormatException e) {
                throw new ParameterException(spec.commandLine(), "--incast: expected N:SIZE:SHARE (e.g. 16:64000:0.1), got '" + incast + "'");
            }
        }
        long rate = 0;
        for (String h : names) rate = Math.max(rate, t.hostLink(h).rateBps());
        try {
            return FlowGenerator.generate(new FlowGenerator.Options(cdf, load, rate, START_NS, (long) (durationMs * 1e6), senders, size,
                    share, seed), names.size());
        } catch (IllegalArgumentException e) {
            throw new ParameterException(spec.commandLine(), e.getMessage());
        }
    }

    private static String fmt(double v) {
        return v == Math.rint(v) ? Long.toString((long) v) : Double.toString(v);
    }

    /** The process's peak resident memory (Linux VmHWM; not on other systems) and the JVM's peak heap use. */
    static String peakMemory() {
        long peak = 0;
        for (var pool : ManagementFactory.getMemoryPoolMXBeans()) {
            if (pool.getType() == java.lang.management.MemoryType.HEAP) peak += pool.getPeakUsage().getUsed();
        }
        String heap = String.format(Locale.ROOT, "%.0f MB heap", peak / 1e6);
        try {
            for (String l : Files.readAllLines(Path.of("/proc/self/status"))) {
                if (l.startsWith("VmHWM:")) {
                    return String.format(Locale.ROOT, "%.0f MB resident, %s", Long.parseLong(l.replaceAll("\\D", "")) / 1024.0, heap);
                }
            }
        } catch (Exception e) {
            // not Linux: the heap alone
        }
        return heap;
    }
}
