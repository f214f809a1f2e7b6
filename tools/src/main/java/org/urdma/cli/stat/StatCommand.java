package org.urdma.cli.stat;

import org.urdma.switchemu.deploy.TopologyDeployer;
import org.urdma.cli.Range;
import org.urdma.transport.counters.CountersFile;
import org.urdma.transport.counters.EngineStatReport;
import org.urdma.transport.counters.StatDirectory;
import org.urdma.switchemu.stat.StatReport;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import java.io.PrintStream;
import java.nio.file.Path;
import java.time.LocalTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;

/** {@code urdma stat [FILE] [--name SW|DEV] [--watch]}: running switches' and engines' live counters, like aeron-stat. */
@Command(
    name = "stat",
    mixinStandardHelpOptions = true,
    description = {"Prints the per-port counters of running (or stopped) switches and engines.",
        "They are read from memory-mapped counters files, as the switches update them: frames, bytes, drops by"
        + " reason, PFC sent/received per priority, ECN marks, queue high-water. FILE: the switches of that topology"
        + " ('urdma switch', 'urdma topo up', in-process runs); --name: one switch or device; neither: every counters"
        + " file found, engines' too (engine-DEV-PID: per device packets, bytes, rxe hw_counters, retransmissions,"
        + " NAKs, CNPs, pause, drops by reason, and one row per QP). --watch: again every interval, with rates."})
public final class StatCommand implements Callable<Integer> {
    @Parameters(index = "0", arity = "0..1", paramLabel = "FILE", description = "topology file (YAML)")
    Path file;

    @Option(names = "--name", paramLabel = "SW|DEV", description = "only this switch or engine device")
    String name;

    @Option(names = "--prefix", description = "as given to 'topo up' (default: from the file's path)")
    String prefix;

    @Option(names = "--dir", paramLabel = "DIR", description = "where the counters files are (default: $URDMA_STAT_DIR, "
        + "else every /dev/shm/urdma-* directory)")
    Path dir;

    @Option(names = {"-w", "--watch"}, description = "print again every --interval until stopped")
    boolean watch;

    @Range(min = 1)
    @Option(names = "--interval", paramLabel = "MS", description = "--watch period (default: ${DEFAULT-VALUE})",
        defaultValue = "1000")
    long intervalMs;

    @Range(min = 1)
    @Option(names = "--count", paramLabel = "N", description = "--watch: stop after N reports (default: until stopped)")
    int count;

    @Override
    public Integer call() throws Exception {
        PrintStream out = System.out;
        List<Path> dirs = dir != null ? List.of(dir) : StatDirectory.forReading();
        String p = prefix != null ? prefix : file != null ? TopologyDeployer.prefixFor(file) : null;
        Map<Path, Map<String, Long>> previous = new HashMap<>();
        long previousNs = 0;
        for (int n = 1; ; n++) {
            List<Path> files = files(dirs, p);
            long now = System.nanoTime();
            if (files.isEmpty()) {
                out.println("no counters files" + (p == null ? "" : " of " + file + " (prefix " + p + ")")
                    + (name == null ? "" : " with switch " + name) + " in " + dirs
                    + " (start a switch: urdma switch FILE, urdma topo up FILE)");
                if (!watch) {
                    return 1;
                }
            }
            if (watch) {
                out.println("--- " + LocalTime.now().format(DateTimeFormatter.ofPattern("HH:mm:ss.SSS")));
            }
            Map<Path, Map<String, Long>> current = new HashMap<>();
            for (Path f : files) {
                try (CountersFile.Snapshot s = CountersFile.read(f)) {
                    boolean engine = EngineStatReport.isEngine(s.reader());
                    Map<String, Long> values = engine ? EngineStatReport.values(s.reader()) : StatReport.values(s.reader());
                    if (name != null && values.keySet().stream().noneMatch(k -> k.startsWith(name + " "))) {
                        continue;
                    }
                    current.put(f, values);
                    out.print(engine ? EngineStatReport.format(s, name, values, previous.get(f), now - previousNs)
                        : StatReport.format(s, name, values, previous.get(f), now - previousNs));
                } catch (IllegalArgumentException | java.io.UncheckedIOException e) {
                    out.println(f + ": " + e.getMessage());
                }
            }
            out.flush();
            if (!watch || (count > 0 && n >= count)) {
                return current.isEmpty() && name != null ? 1 : 0;
            }
            previous = current;
            previousNs = now;
            Thread.sleep(Math.max(10, intervalMs));
        }
    }

    /** Files of the prefix: PREFIX.counters (an in-process run) and PREFIX-SW.counters (one switch each). */
    private static List<Path> files(List<Path> dirs, String prefix) {
        List<Path> out = new ArrayList<>();
        for (Path f : StatDirectory.find(dirs, prefix)) {
            String n = f.getFileName().toString();
            if (prefix == null || n.equals(prefix + CountersFile.SUFFIX) || n.startsWith(prefix + "-")) {
                out.add(f);
            }
        }
        return out;
    }
}
