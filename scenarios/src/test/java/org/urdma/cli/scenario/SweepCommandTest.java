package org.urdma.cli.scenario;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.urdma.cli.UrdmaCli;

class SweepCommandTest {
    private static String run(String... args) {
        StringWriter out = new StringWriter();
        var cl = UrdmaCli.commandLine();
        cl.setOut(new PrintWriter(out, true));
        cl.setErr(new PrintWriter(out, true));
        int rc = cl.execute(args);
        assertEquals(0, rc, out.toString());
        return out.toString();
    }

    private static Path leafSpine(Path dir) {
        Path topo = dir.resolve("ls.yaml");
        run("topo", "gen", "leaf-spine", "--leaves", "2", "--spines", "2", "--hosts-per-leaf", "4", "--buffer-mb", "2", "-o", topo.toString());
        return topo;
    }

    /** Every file under {@code dir}, by its path relative to it. */
    private static List<Path> files(Path dir) throws Exception {
        try (Stream<Path> s = Files.walk(dir)) {
            return s.filter(Files::isRegularFile).map(dir::relativize).sorted().toList();
        }
    }

    private static void assertSameFiles(Path a, Path b) throws Exception {
        assertEquals(files(a), files(b));
        for (Path f : files(a)) assertArrayEquals(Files.readAllBytes(a.resolve(f)), Files.readAllBytes(b.resolve(f)), f.toString());
    }

    /** Two runs at once, each in a JVM of its own, give the bytes of one run at a time in this JVM. */
    @Test
    void runsInParallelGiveTheSameFilesAsOneAtATime(@TempDir Path dir) throws Exception {
        Path topo = leafSpine(dir);
        List<String> common = List.of("scenario", "sweep", "--topology", topo.toString(), "--workload", "websearch", "--duration-ms", "0.1",
                "--cc", "none,dcqcn", "--load", "0.3", "--step", "25");
        List<String> serial = new ArrayList<>(common);
        serial.addAll(List.of("--parallel", "1", "--in-process", "--out", dir.resolve("serial").toString()));
        List<String> parallel = new ArrayList<>(common);
        parallel.addAll(List.of("--parallel", "2", "--out", dir.resolve("parallel").toString()));
        run(serial.toArray(new String[0]));
        String text = run(parallel.toArray(new String[0]));
        assertSameFiles(dir.resolve("serial"), dir.resolve("parallel"));
        List<String> csv = Files.readAllLines(dir.resolve("parallel").resolve("sweep.csv"));
        assertEquals("cc,load,seed,pct,size,p50,p95,p99", csv.get(0));
        assertEquals(1 + 2 * 4, csv.size(), "2 runs x 4 groups of 25 %\n" + text);
        assertTrue(csv.get(1).startsWith("none,0.3,1,0.00,") && csv.get(8).startsWith("dcqcn,0.3,1,0.75,"), String.join("\n", csv));
        assertTrue(text.contains("dcqcn_load0.3_seed1: dcqcn: ") && text.contains("events/s") && text.contains("2 runs in "), text);
        assertTrue(text.contains("2 at a time (a JVM each, ") && text.matches("(?s).*parallel speedup [0-9.]+ x.*")
                && text.matches("(?s).*[1-9][0-9]* events per CPU-second.*"), text);
    }

    /** The command that starts the CLI of this test's class path, for the job list. */
    private static String launcher() {
        List<String> cmd = new ArrayList<>();
        cmd.add(ProcessHandle.current().info().command().orElse("java"));
        cmd.addAll(ManagementFactory.getRuntimeMXBean().getInputArguments().stream().filter(a -> !a.startsWith("-agentlib")).toList());
        cmd.addAll(List.of("-cp", System.getProperty("java.class.path"), UrdmaCli.class.getName()));
        return String.join(" ", cmd.stream().map(SweepPlan::quote).toList());
    }

    private static void shell(Path dir, List<String> cmd, String... env) throws Exception {
        ProcessBuilder pb = new ProcessBuilder(cmd).directory(dir.toFile()).redirectErrorStream(true);
        for (int i = 0; i < env.length; i += 2) pb.environment().put(env[i], env[i + 1]);
        Process p = pb.start();
        String out = new String(p.getInputStream().readAllBytes());
        assertTrue(p.waitFor(120, TimeUnit.SECONDS), "ran: " + cmd);
        assertEquals(0, p.exitValue(), cmd + "\n" + out);
    }

    @Test
    void theJobListsLinesRunAsWrittenAndGatherBuildsTheSameTable(@TempDir Path dir) throws Exception {
        Path topo = leafSpine(dir);
        List<String> common = List.of("scenario", "sweep", "--topology", topo.toString(), "--workload", "fb_hadoop", "--duration-ms", "0.1",
                "--cc", "dcqcn", "--seed", "1,2", "--step", "25");
        List<String> here = new ArrayList<>(common);
        here.addAll(List.of("--out", dir.resolve("here").toString()));
        run(here.toArray(new String[0]));
        Path jobs = dir.resolve("jobs.txt");
        List<String> list = new ArrayList<>(common);
        list.addAll(List.of("--out", dir.resolve("cluster").toString(), "--jobs", jobs.toString(), "--launcher", launcher()));
        run(list.toArray(new String[0]));
        List<String> lines = Files.readAllLines(jobs);
        assertEquals(2, lines.size(), "a command line per run");
        assertTrue(lines.get(0).endsWith("--cc dcqcn --load 0.3 --seed 1 --out " + dir.resolve("cluster").resolve("dcqcn_load0.3_seed1")),
                lines.get(0));
        String slurm = Files.readString(Path.of(jobs + ".slurm"));
        assertTrue(slurm.contains("#SBATCH --array=1-2") && slurm.contains("$SLURM_ARRAY_TASK_ID") || slurm.contains("${SLURM_ARRAY_TASK_ID}"),
                slurm);
        // line 1 as the Slurm array's task 1 runs it, line 2 as GNU parallel would (a shell runs the line)
        shell(dir, List.of("bash", jobs + ".slurm"), "SLURM_ARRAY_TASK_ID", "1");
        shell(dir, List.of("bash", "-c", lines.get(1)));
        String table = run("scenario", "sweep", "--gather", dir.resolve("cluster").toString());
        assertTrue(table.contains("sweep: 2 runs"), table);
        assertSameFiles(dir.resolve("here"), dir.resolve("cluster"));
    }

    @Test
    void gatherNamesTheFirstMissingResult(@TempDir Path dir) throws Exception {
        Path topo = leafSpine(dir);
        run("scenario", "sweep", "--topology", topo.toString(), "--workload", "websearch", "--seed", "1,2", "--out", dir.resolve("s").toString(),
                "--jobs", dir.resolve("jobs.txt").toString());
        String line = Refusal.of("scenario", "sweep", "--gather", dir.resolve("s").toString());
        assertTrue(line.contains("2 of 2 runs have no results yet") && line.contains("dcqcn_load0.3_seed1"), line);
        line = Refusal.of("scenario", "sweep", "--topology", topo.toString(), "--flows", "x", "--workload", "websearch");
        assertTrue(line.contains("--flows or --workload: give exactly one"), line);
        line = Refusal.of("scenario", "sweep", "--topology", topo.toString(), "--workload", "websearch", "--load", "0.3,2");
        assertTrue(line.contains("--load: must be 0.001..1, was 2.0"), line);
    }
}
