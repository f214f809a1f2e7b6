package org.urdma.cli.scenario;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The runs of a sweep: one {@code scenario fct} per congestion control × load × seed, each with its own output
 * directory under the sweep's, and its command line (the same arguments run in this process or from a job list).
 */
final class SweepPlan {
    /** File in the sweep directory that lists its runs: name, cc, load, seed, tab-separated. */
    static final String MANIFEST = "runs.tsv";

    /** One run: its name (its directory under the sweep's), what varies, and the arguments of {@code scenario fct}. */
    record Run(String name, String cc, String load, long seed, List<String> fctArgs) {
        String manifestLine() {
            return name + "\t" + cc + "\t" + load + "\t" + seed;
        }
    }

    private SweepPlan() {
    }

    /**
     * The runs, in cc-major, then load, then seed order. {@code common} are the {@code scenario fct} arguments every run
     * shares (topology, workload or flows, ...); loads are left out when the flows come from a file ({@code loads} null).
     */
    static List<Run> runs(List<String> ccs, List<Double> loads, List<Long> seeds, List<String> common, Path out) {
        List<Run> runs = new ArrayList<>();
        for (String cc : ccs) {
            for (Double load : loads == null ? java.util.Collections.<Double>singletonList(null) : loads) {
                for (long seed : seeds) {
                    String l = load == null ? "-" : number(load);
                    String name = cc.replaceAll("[^A-Za-z0-9_.=+-]", "_") + (load == null ? "" : "_load" + l) + "_seed" + seed;
                    List<String> args = new ArrayList<>(List.of("scenario", "fct"));
                    args.addAll(common);
                    args.addAll(List.of("--cc", cc));
                    if (load != null) args.addAll(List.of("--load", l));
                    args.addAll(List.of("--seed", Long.toString(seed), "--out", out.resolve(name).toString()));
                    runs.add(new Run(name, cc, l, seed, args));
                }
            }
        }
        return runs;
    }

    static String number(double v) {
        return v == Math.rint(v) ? Long.toString((long) v) : String.format(Locale.ROOT, "%s", v);
    }

    /** The manifest's text. */
    static String manifest(List<Run> runs) {
        StringBuilder sb = new StringBuilder("# name\tcc\tload\tseed\n");
        for (Run r : runs) sb.append(r.manifestLine()).append('\n');
        return sb.toString();
    }

    /** One shell command line per run: {@code launcher} then the run's arguments, each quoted for a POSIX shell. */
    static String jobList(List<Run> runs, String launcher) {
        StringBuilder sb = new StringBuilder();
        for (Run r : runs) {
            sb.append(launcher);
            for (String a : r.fctArgs()) sb.append(' ').append(quote(a));
            sb.append('\n');
        }
        return sb.toString();
    }

    /** A Slurm array script that runs line $SLURM_ARRAY_TASK_ID of {@code jobs}. */
    static String slurmScript(Path jobs, int count) {
        return "#!/bin/bash\n"
                + "#SBATCH --job-name=urdma-sweep\n"
                + "#SBATCH --array=1-" + count + "\n"
                + "#SBATCH --cpus-per-task=1\n"
                + "#SBATCH --output=" + quote(jobs.toAbsolutePath().getParent().resolve("slurm-%A_%a.out").toString()) + "\n"
                + "# each array task runs one line of the job list; every run is single-threaded\n"
                + "eval \"$(sed -n \"${SLURM_ARRAY_TASK_ID}p\" " + quote(jobs.toAbsolutePath().toString()) + ")\"\n";
    }

    /** {@code s} as one word for a POSIX shell (single quotes unless it needs none). */
    static String quote(String s) {
        if (!s.isEmpty() && s.matches("[A-Za-z0-9_./:=+,@%-]+")) return s;
        return "'" + s.replace("'", "'\\''") + "'";
    }
}
