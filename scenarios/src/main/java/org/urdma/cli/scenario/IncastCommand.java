package org.urdma.cli.scenario;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;
import org.urdma.scenario.chart.IncastChart;
import org.urdma.cli.Range;
import org.urdma.scenario.world.Incast;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/** {@code urdma scenario incast}. */
@Command(name = "incast", mixinStandardHelpOptions = true,
    description = "N:1 incast of RC WRITE streams with DCQCN through the simulated switch, with and without PFC: "
        + "Jain fairness over the last half, bottleneck queue vs RED thresholds, PFC frames, drops; a table, "
        + "DIR/incast.csv, DIR/incast-series.csv, DIR/incast-throughput.png and DIR/incast-queue.png.")
public final class IncastCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Mixin
    ScenarioCommand.Common common;

    @Option(names = "--quick", description = "the CI form: DCQCN's timer 15x faster (rpTimer 100 us, byte counter off), "
        + "RED pmax 10 %%, 120 ms, flows 2 ms apart; other options still override")
    boolean quick;

    @Range(min = 1, max = 62)
    @Option(names = "--senders", description = "senders (default 8)")
    Integer senders;

    @Range(min = 0.1, max = 400)
    @Option(names = "--gbps", description = "every link's rate (default 10)")
    Double gbps;

    @Option(names = "--cc", description = "the senders' rate control: dcqcn, dctcp, timely (each also +w) or hpcc (every port then stamps in-band telemetry) with options, e.g. dcqcn:rpTimer=100 or hpcc:rtt=5 (default dcqcn; line = link rate)")
    String cc;

    @Range(min = 1, max = 1 << 30)
    @Option(names = {"-s", "--size"}, description = "message bytes (default 16384)")
    Integer size;

    @Range(min = 64_000, max = 1L << 32)
    @Option(names = "--buffer", description = "switch buffer bytes (default 1000000)")
    Long buffer;

    @Range(min = 0, max = 1L << 32)
    @Option(names = "--kmin", description = "RED kmin bytes (default 5000)")
    Long kmin;

    @Range(min = 1, max = 1L << 32)
    @Option(names = "--kmax", description = "RED kmax bytes (default 200000)")
    Long kmax;

    @Range(min = 0.0001, max = 1)
    @Option(names = "--pmax", description = "RED marking probability at kmax (default 0.01; --quick 0.1)")
    Double pmax;

    @Range(min = 0.01, max = 100_000)
    @Option(names = "--ms", description = "simulated milliseconds per run (default 1500; --quick 120)")
    Double ms;

    @Range(min = 0, max = 100_000)
    @Option(names = "--spacing-ms", description = "start of sender i at i x this (default 20; --quick 2)")
    Double spacingMs;

    @Range(min = 0.001, max = 100_000)
    @Option(names = "--sample-ms", description = "throughput sample period (default 5; --quick 1)")
    Double sampleMs;

    @Option(names = "--pfc", split = ",", description = "PFC settings to run: on, off (default on,off)")
    List<String> pfc;

    @Option(names = "--out", paramLabel = "DIR", defaultValue = "scenario-incast",
        description = "where the CSVs and PNGs go (default ${DEFAULT-VALUE})")
    Path out;

    @Override
    public Integer call() throws Exception {
        Incast.Options d = quick ? Incast.Options.quick(senders == null ? 8 : senders) : Incast.Options.defaults();
        boolean[] modes = d.pfc();
        if (pfc != null) {
            modes = new boolean[pfc.size()];
            for (int i = 0; i < modes.length; i++) {
                modes[i] = switch (pfc.get(i).trim()) {
                    case "on" -> true;
                    case "off" -> false;
                    default -> throw new ParameterException(spec.commandLine(), "--pfc: expected on or off, got '" + pfc.get(i) + "'");
                };
            }
        }
        Incast.Options o;
        try {
            o = new Incast.Options(senders == null ? d.senders() : senders,
                gbps == null ? d.rateBps() : (long) (gbps * 1e9), cc == null ? d.cc() : cc,
                size == null ? d.messageBytes() : size, buffer == null ? d.bufferBytes() : buffer,
                kmin == null ? d.kminBytes() : kmin, kmax == null ? d.kmaxBytes() : kmax, pmax == null ? d.pmax() : pmax,
                ms == null ? d.durationNs() : (long) (ms * 1e6), spacingMs == null ? d.spacingNs() : (long) (spacingMs * 1e6),
                sampleMs == null ? d.sampleNs() : (long) (sampleMs * 1e6), d.queueSampleNs(), modes, common.seed);
        } catch (IllegalArgumentException e) {
            throw new ParameterException(spec.commandLine(), e.getMessage());
        }
        List<Incast.Run> runs = Incast.runs(o);
        common.print(spec, Incast.table(o, runs));
        Files.createDirectories(out);
        Files.writeString(out.resolve("incast.csv"), Incast.table(o, runs).csv());
        Files.writeString(out.resolve("incast-series.csv"), Incast.seriesCsv(runs));
        new IncastChart(o, runs, String.format(java.util.Locale.ROOT, "%d:1 incast, %s", o.senders(), o.cc())).save(out);
        spec.commandLine().getOut().println("wrote " + out.resolve("incast.csv") + ", incast-series.csv, incast-throughput.png, incast-queue.png");
        return 0;
    }
}
