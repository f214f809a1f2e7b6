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
import java.util.regex.Matcher;
import java.util.regex.Pattern;
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
        "Each run is a JVM of its own (serial GC, one visible processor, its share of the memory; --in-process: threads of this JVM).",
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

    @Option(names = "--in-process", description = "run the runs as threads of this JVM (default: a JVM of its own per run, with a serial GC and its share of memory)")
    boolean inProcess;

    @Range(min = 64, max = 1_048_576, integer = true)
    @Option(names = "--run-heap-mb", description = "heap of each run's JVM, MB (default: 3/4 of the machine's memory shared among the runs at once, at most 8192)")
    Long runHeapMb;

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
        long heapMb = runHeapMb != null ? runHeapMb : RunJvm.defaultHeapMb(threads);
        long wall = System.nanoTime();
        RunTimes times = runAll(o, runs, threads, heapMb);
        double seconds = (System.nanoTime() - wall) / 1e9;
        print(o, out, SweepTable.gather(out));
        o.printf(Locale.ROOT, "%d runs in %.1f s wall, %d at a time (%s); the runs took %.1f s together: parallel speedup %.2f x "
                        + "(sum of run wall times / sweep wall time)%n",
                runs.size(), seconds, threads, inProcess ? "threads of this JVM" : "a JVM each, " + heapMb + " MB heap", times.wall,
                times.wall / Math.max(seconds, 1e-9));
        o.printf(Locale.ROOT, "  simulation CPU %.1f s, %d events, %.0f events per CPU-second%n", times.cpu, times.events,
                times.events / Math.max(times.cpu, 1e-9));
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

    /** What the runs' own lines say they took: wall and simulation-thread CPU seconds, and events. */
    record RunTimes(double wall, double cpu, long events) {
        private static final Pattern LINE = Pattern.compile(" in ([0-9.]+) s wall, ([0-9.]+) s CPU, ([0-9]+) events");

        static RunTimes of(String log) {
            double wall = 0;
            double cpu = 0;
            long events = 0;
            for (Matcher m = LINE.matcher(log); m.find();) {
                wall += Double.parseDouble(m.group(1));
                cpu += Double.parseDouble(m.group(2));
                events += Long.parseLong(m.group(3));
            }
            return new RunTimes(wall, cpu, events);
        }

        RunTimes plus(RunTimes o) {
            return new RunTimes(wall + o.wall, cpu + o.cpu, events + o.events);
        }
    }

    /** Runs every run as {@code scenario fct}, {@code threads} at a time, each in a JVM of its own or in this one. */
    private RunTimes runAll(PrintWriter o, List<SweepPlan.Run> runs, int threads, long heapMb) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(threads, r -> {
            Thread t = new Thread(r, "sweep-run");
            t.setDaemon(true);
            return t;
        });
        try {
            List<Future<RunTimes>> done = new ArrayList<>();
            for (SweepPlan.Run r : runs) {
                done.add(pool.submit(() -> {
                    Outcome result = inProcess ? inThisJvm(r) : inItsJvm(r, heapMb);
                    int rc = result.rc();
                    String log = result.log();
                    synchronized (o) {
                        for (String line : log.lines().toList()) {
                            if (rc != 0 || line.contains("events/s")) o.println(r.name() + ": " + line);
                        }
                        o.flush();
                    }
                    if (rc != 0) throw new IllegalStateException("run " + r.name() + " failed (exit " + rc + ")");
                    return RunTimes.of(log);
                }));
            }
            RunTimes total = new RunTimes(0, 0, 0);
            for (Future<RunTimes> f : done) {
                try {
                    total = total.plus(f.get());
                } catch (java.util.concurrent.ExecutionException e) {
                    throw e.getCause() instanceof Exception x ? x : e;
                }
            }
            return total;
        } finally {
            pool.shutdownNow();
        }
    }

    /** A run's exit code and what it printed. */
    private record Outcome(int rc, String log) {
    }

    /** The run, on this thread. */
    private static Outcome inThisJvm(SweepPlan.Run r) {
        StringWriter log = new StringWriter();
        var cl = UrdmaCli.commandLine();
        cl.setOut(new PrintWriter(log, true));
        cl.setErr(new PrintWriter(log, true));
        int rc = cl.execute(r.fctArgs().toArray(new String[0]));
        return new Outcome(rc, log.toString());
    }

    /** The run, in a JVM of its own. */
    private static Outcome inItsJvm(SweepPlan.Run r, long heapMb) throws Exception {
        Process p = new ProcessBuilder(RunJvm.command(r.fctArgs(), heapMb)).redirectErrorStream(true).start();
        try {
            String log = new String(p.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
            return new Outcome(p.waitFor(), log);
        } finally {
            p.destroyForcibly();
        }
    }

    private static void print(PrintWriter o, Path dir, ResultTable t) throws Exception {
        o.print(t.text());
        Files.writeString(dir.resolve("sweep.csv"), t.csv());
        o.println("wrote " + dir.resolve("sweep.csv"));
        o.flush();
    }
}
