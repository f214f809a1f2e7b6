package org.urdma.cli.scenario;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.urdma.cli.Range;
import org.urdma.cli.UrdmaCli;
import org.urdma.scenario.world.ResultTable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/** {@code urdma scenario sweep}: independent {@code scenario fct} runs (CC × load × seed), in parallel or as a job list. */
@Command(name = "sweep", mixinStandardHelpOptions = true,
    description = {"Runs scenario fct once per congestion control, load and seed, in parallel on this machine's cores.",
        "Each run is single-threaded and deterministic and writes its results in DIR/NAME (NAME like dcqcn_load0.3_seed1;",
        "DIR/runs.tsv lists them); the sweep gathers their p50/p95/p99 slowdown per flow-size group into one table",
        "(printed, and DIR/sweep.csv). --jobs FILE writes the runs as a job list instead (one command line per run, for",
        "GNU parallel or, with FILE.slurm, a Slurm job array); --gather DIR builds the table from their result files."})
public final class SweepCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Option(names = "--topology", paramLabel = "FILE", description = "topology YAML or HPCC topology text (not with --gather)")
    Path topology;

    @Option(names = "--flows", paramLabel = "FILE", description = "an HPCC flow list, the same for every run (then no --load)")
    Path flows;

    @Option(names = "--workload", paramLabel = "CDF", description = "a flow-size CDF file or a shipped one (websearch, fb_hadoop)")
    String workload;

    @Option(names = "--load", split = ",", paramLabel = "L", description = "loads to sweep, fractions of the host link rate (default 0.3)")
    List<Double> loads;

    @Option(names = "--cc", split = ",", defaultValue = "dcqcn", description = "congestion controls to sweep (default ${DEFAULT-VALUE})")
    List<String> cc;

    @Option(names = "--seed", split = ",", defaultValue = "1", description = "seeds to sweep (default ${DEFAULT-VALUE})")
    List<Long> seeds;

    @Range(min = 0.001, max = 100_000)
    @Option(names = "--duration-ms", description = "how long flows arrive, ms (scenario fct's default when not given)")
    Double durationMs;

    @Option(names = "--incast", paramLabel = "N:SIZE:SHARE", description = "an incast process, as scenario fct takes it")
    String incast;

    @Range(oneOf = {256, 512, 1024, 2048, 4096})
    @Option(names = "--mtu", description = "path MTU (scenario fct's default when not given)")
    Integer mtu;

    @Range(min = 1, max = 50, integer = true)
    @Option(names = "--step", description = "flow-size group, percent of the flows (scenario fct's default when not given)")
    Integer step;

    @Range(min = 0.001, max = 1_000_000)
    @Option(names = "--until-ms", description = "stop each run's clock here")
    Double untilMs;

    @Option(names = "--real-bytes", description = "carry and check real payload bytes")
    boolean realBytes;

    @Range(min = 1, max = 1024, integer = true)
    @Option(names = "--parallel", description = "runs at once (default: the machine's cores)")
    Integer parallel;

    @Option(names = "--out", paramLabel = "DIR", defaultValue = "scenario-sweep", description = "where the runs' results go (default ${DEFAULT-VALUE})")
    Path out;

    @Option(names = "--jobs", paramLabel = "FILE", description = "write the runs as a job list (and FILE.slurm) instead of running them")
    Path jobs;

    @Option(names = "--launcher", defaultValue = "urdma", description = "the command that starts urdma in the job list (default ${DEFAULT-VALUE})")
    String launcher;

    @Option(names = "--gather", paramLabel = "DIR", description = "only build the table from the result files of DIR's runs")
    Path gather;

    @Override
    public Integer call() throws Exception {
        PrintWriter o = spec.commandLine().getOut();
        if (gather != null) {
            print(o, gather, SweepTable.gather(gather));
            return 0;
        }
        List<SweepPlan.Run> runs = plan();
        Files.createDirectories(out);
        Files.writeString(out.resolve(SweepPlan.MANIFEST), SweepPlan.manifest(runs));
        if (jobs != null) {
            Files.writeString(jobs, SweepPlan.jobList(runs, launcher));
            Path slurm = Path.of(jobs + ".slurm");
            Files.writeString(slurm, SweepPlan.slurmScript(jobs, runs.size()));
            o.printf(Locale.ROOT, "wrote %d runs to %s (e.g. parallel -j CORES < %s, or sbatch %s); then: urdma scenario sweep --gather %s%n",
                    runs.size(), jobs, jobs, slurm, out.toAbsolutePath());
            return 0;
        }
        int threads = parallel != null ? parallel : Runtime.getRuntime().availableProcessors();
        long wall = System.nanoTime();
        long busy = runAll(o, runs, threads);
        double seconds = (System.nanoTime() - wall) / 1e9;
        print(o, out, SweepTable.gather(out));
        o.printf(Locale.ROOT, "%d runs in %.1f s wall, %d at a time; the runs took %.1f s together (%.2f x)%n", runs.size(), seconds,
                threads, busy / 1e9, busy / 1e9 / Math.max(seconds, 1e-9));
        o.flush();
        return 0;
    }

    private List<SweepPlan.Run> plan() {
        if (topology == null) throw new ParameterException(spec.commandLine(), "--topology: needed (unless --gather)");
        if ((flows == null) == (workload == null)) {
            throw new ParameterException(spec.commandLine(), "--flows or --workload: give exactly one");
        }
        if (flows != null && loads != null) {
            throw new ParameterException(spec.commandLine(), "--load: a flow list (--flows) fixes the load; give no --load");
        }
        List<Double> l = null;
        if (workload != null) {
            l = loads == null ? List.of(0.3) : loads;
            for (double x : l) {
                if (!(x >= 0.001 && x <= 1)) throw new ParameterException(spec.commandLine(), "--load: must be 0.001..1, was " + x);
            }
        }
        List<String> common = new ArrayList<>(List.of("--topology", topology.toAbsolutePath().toString()));
        if (flows != null) common.addAll(List.of("--flows", flows.toAbsolutePath().toString()));
        if (workload != null) {
            String w = Files.exists(Path.of(workload)) ? Path.of(workload).toAbsolutePath().toString() : workload;
            common.addAll(List.of("--workload", w));
        }
        if (durationMs != null) common.addAll(List.of("--duration-ms", SweepPlan.number(durationMs)));
        if (incast != null) common.addAll(List.of("--incast", incast));
        if (mtu != null) common.addAll(List.of("--mtu", mtu.toString()));
        if (step != null) common.addAll(List.of("--step", step.toString()));
        if (untilMs != null) common.addAll(List.of("--until-ms", SweepPlan.number(untilMs)));
        if (realBytes) common.add("--real-bytes");
        return SweepPlan.runs(cc, l, seeds, common, out.toAbsolutePath());
    }

    /** Runs every run as {@code scenario fct} in this process, {@code threads} at a time; returns their summed wall time. */
    private long runAll(PrintWriter o, List<SweepPlan.Run> runs, int threads) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(threads, r -> {
            Thread t = new Thread(r, "sweep-run");
            t.setDaemon(true);
            return t;
        });
        try {
            List<Future<Long>> done = new ArrayList<>();
            for (SweepPlan.Run r : runs) {
                done.add(pool.submit(() -> {
                    long t0 = System.nanoTime();
                    StringWriter log = new StringWriter();
                    var cl = UrdmaCli.commandLine();
                    cl.setOut(new PrintWriter(log, true));
                    cl.setErr(new PrintWriter(log, true));
                    int rc = cl.execute(r.fctArgs().toArray(new String[0]));
                    long took = System.nanoTime() - t0;
                    synchronized (o) {
                        for (String line : log.toString().lines().toList()) {
                            if (rc != 0 || line.contains("events/s")) o.println(r.name() + ": " + line);
                        }
                        o.flush();
                    }
                    if (rc != 0) throw new IllegalStateException("run " + r.name() + " failed (exit " + rc + ")");
                    return took;
                }));
            }
            long busy = 0;
            for (Future<Long> f : done) {
                try {
                    busy += f.get();
                } catch (java.util.concurrent.ExecutionException e) {
                    throw e.getCause() instanceof Exception x ? x : e;
                }
            }
            return busy;
        } finally {
            pool.shutdownNow();
        }
    }

    private static void print(PrintWriter o, Path dir, ResultTable t) throws Exception {
        o.print(t.text());
        Files.writeString(dir.resolve("sweep.csv"), t.csv());
        o.println("wrote " + dir.resolve("sweep.csv"));
        o.flush();
    }
}
