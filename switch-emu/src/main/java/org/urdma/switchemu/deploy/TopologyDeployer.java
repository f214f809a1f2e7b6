package org.urdma.switchemu.deploy;

import org.urdma.nativeio.netns.Netns;
import org.urdma.transport.counters.CountersFile;
import org.urdma.transport.counters.StatDirectory;
import org.urdma.switchemu.topo.NetemProbe;
import org.urdma.switchemu.topo.Topology;
import org.urdma.switchemu.topo.TopologyException;
import org.urdma.switchemu.topo.TopologyParser;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.TimeUnit;

/**
 * {@code urdma topo up|down FILE}: makes a topology's namespaces and veths ({@link NetworkBuilder}),
 * starts one switch process per switch inside its namespace, and records everything in a state file
 * as it goes, so that {@code down} removes all of it — also after an {@code up} that failed or was
 * killed half-way. Names derive from the file's absolute path ({@code tXXXX-NODE}), so {@code down FILE}
 * finds them even without the state file.
 */
public final class TopologyDeployer {
    /** Where state files and switch logs go unless told otherwise. */
    public static final Path DEFAULT_STATE_DIR = Path.of("/run/urdma");

    private final Path file;
    private final Path stateDir;
    private final String prefix;
    private final boolean explicitPrefix;
    private final PrintStream out;

    public TopologyDeployer(Path file, Path stateDir, String prefix, PrintStream out) {
        this.file = file.toAbsolutePath().normalize();
        this.stateDir = stateDir == null ? DEFAULT_STATE_DIR : stateDir;
        this.prefix = prefix == null ? prefixFor(this.file) : prefix;
        this.explicitPrefix = prefix != null;
        this.out = out;
    }

    /** "t" + 4 base-36 characters from the file's absolute path. */
    public static String prefixFor(Path file) {
        int h = file.toAbsolutePath().normalize().toString().hashCode() & 0x7FFF_FFFF;
        String s = Integer.toString(h % (36 * 36 * 36 * 36), 36);
        return "t" + "0".repeat(4 - s.length()) + s;
    }

    public String prefix() {
        return prefix;
    }

    public Path stateFile() {
        return stateDir.resolve(prefix + ".state");
    }

    public Path logFile(String switchName) {
        return stateDir.resolve(prefix + "-" + switchName + ".log");
    }

    /**
     * Brings the topology up. {@code launcher} is the command that runs {@code urdma} (a java command
     * line), to which {@code switch FILE --name SW} and {@code switchArgs} are appended.
     */
    public void up(List<String> launcher, List<String> switchArgs, long readyTimeoutMs) throws IOException {
        Topology topology = TopologyParser.parse(file);
        // before anything is made: a link that needs tc netem on a kernel without it fails here, naming its line
        KernelNetem.Plan plan = KernelNetem.plan(topology, NetemProbe.probe());
        Path state = stateFile();
        if (Files.exists(state)) {
            throw new IllegalStateException("topology " + file + " is already up (state " + state + "); run: urdma topo down "
                + file);
        }
        for (String ns : Netns.list()) {
            if (ns.startsWith(prefix + "-")) {
                throw new IllegalStateException("namespace " + ns + " already exists (left over?); run: urdma topo down " + file);
            }
        }
        Files.createDirectories(stateDir);
        Files.writeString(state, "file " + file + "\nprefix " + prefix + "\n", StandardCharsets.UTF_8,
            StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE);
        org.urdma.nativeio.netns.Topology net = org.urdma.nativeio.netns.Topology.create(prefix);
        List<Long> pids = new ArrayList<>();
        boolean ok = false;
        try {
            NetworkBuilder.Network network = NetworkBuilder.build(topology, net, ns -> record(state, "ns " + ns));
            out.println("namespaces: " + String.join(" ", network.namespaces().values()));
            for (Topology.Host h : topology.hosts().values()) {
                out.println("  host " + h.name() + ": ip netns exec " + network.namespace(h.name()) + " ... (eth0 "
                    + org.urdma.switchemu.frame.Mac.toString(h.mac()) + ", " + h.ipv4() + ")");
            }
            Set<Topology.Link> kernel = applyNetem(plan, network);
            for (Topology.Switch s : topology.switches().values()) {
                Path log = logFile(s.name());
                List<String> cmd = new ArrayList<>(List.of("ip", "netns", "exec", network.namespace(s.name())));
                cmd.addAll(launcher);
                cmd.addAll(List.of("switch", file.toString(), "--name", s.name(), "--counters",
                    countersFile(s.name()).toString()));
                if (!kernel.isEmpty()) {
                    cmd.add("--netem-links");
                    cmd.add(String.join(",", kernel.stream().map(l -> Integer.toString(l.line())).toList()));
                }
                cmd.addAll(switchArgs);
                Process p = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile())
                    .redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null"))).start();
                pids.add(p.pid());
                record(state, "pid " + p.pid() + " " + s.name());
                String ready = awaitReady(p, log, readyTimeoutMs);
                out.println("  switch " + s.name() + " (pid " + p.pid() + ", log " + log + "): " + ready);
            }
            net.keep();
            ok = true;
            out.println("up: " + topology.hosts().size() + " hosts, " + topology.switches().size() + " switches, "
                + topology.links().size() + " links; live counters: urdma stat " + file + (explicitPrefix ? " --prefix " + prefix : "")
                + "; tear down with: urdma topo down " + file + (explicitPrefix ? " --prefix " + prefix : ""));
        } finally {
            if (!ok) {
                for (long pid : pids) {
                    stop(pid, 3000);
                }
                net.close();
                Files.deleteIfExists(state);
            }
        }
    }

    private static void record(Path state, String line) {
        try {
            Files.writeString(state, line + "\n", StandardCharsets.UTF_8, StandardOpenOption.APPEND, StandardOpenOption.SYNC);
        } catch (IOException e) {
            throw new java.io.UncheckedIOException("cannot record '" + line + "' in " + state, e);
        }
    }

    private static String awaitReady(Process p, Path log, long timeoutMs) throws IOException {
        long end = System.nanoTime() + timeoutMs * 1_000_000L;
        while (System.nanoTime() < end) {
            for (String line : Files.readAllLines(log, StandardCharsets.UTF_8)) {
                if (line.startsWith(ForegroundSwitch.READY)) {
                    return line;
                }
            }
            if (!p.isAlive()) {
                throw new IllegalStateException("switch process exited with " + p.exitValue() + ": " + tail(log));
            }
            try {
                Thread.sleep(50);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted waiting for the switch", e);
            }
        }
        throw new IllegalStateException("switch did not report ready within " + timeoutMs + " ms: " + tail(log));
    }

    private static String tail(Path log) throws IOException {
        List<String> lines = Files.readAllLines(log, StandardCharsets.UTF_8).stream()
            .filter(l -> !l.startsWith("\tat ")).toList();
        return String.join("\n", lines.subList(Math.max(0, lines.size() - 40), lines.size()));
    }

    /** The counter report a stopped switch wrote at the end of its log (or the log's tail). */
    private static String report(Path log, String switchName) throws IOException {
        List<String> lines = Files.readAllLines(log, StandardCharsets.UTF_8);
        for (int i = lines.size() - 1; i >= 0; i--) {
            if (lines.get(i).startsWith("switch " + switchName + ": ")) {
                return String.join("\n", lines.subList(i, lines.size()));
            }
        }
        return tail(log);
    }

    /** The live counters file of a switch of this topology ({@code urdma stat FILE} finds it by the prefix). */
    public Path countersFile(String switchName) {
        return StatDirectory.forWriting().resolve(prefix + "-" + switchName + CountersFile.SUFFIX);
    }

    /**
     * Adds the plan's netem qdiscs; returns the links the kernel now impairs. A qdisc the kernel refuses
     * sends an {@code auto} link back to the switch stage (said so) and fails a {@code kernel} link.
     */
    Set<Topology.Link> applyNetem(KernelNetem.Plan plan, NetworkBuilder.Network network) {
        plan.notes().forEach(n -> out.println("impairment: " + n));
        Set<Topology.Link> kernel = new LinkedHashSet<>(plan.kernelLinks());
        List<KernelNetem.Qdisc> added = new ArrayList<>();
        for (KernelNetem.Qdisc q : plan.qdiscs()) {
            if (!kernel.contains(q.link())) {
                continue;
            }
            try {
                Netns.exec(network.namespace(q.node()), q.command().toArray(String[]::new));
                added.add(q);
                out.println("  " + q.node() + ": " + String.join(" ", q.command()));
            } catch (RuntimeException e) {
                String why = e.getMessage() == null ? e.toString() : e.getMessage().strip().replace('\n', ' ');
                if (q.link().mode() == Topology.ImpairmentMode.KERNEL) {
                    throw new TopologyException(file.toString(), q.link().line(), "tc netem for the link " + q.link().a()
                        + "-" + q.link().b() + " failed (" + why + "): " + String.join(" ", q.command()));
                }
                out.println("  " + q.node() + ": tc netem failed (" + why + "); the switch stage impairs the link of line "
                    + q.link().line() + " instead");
                kernel.remove(q.link());
                for (KernelNetem.Qdisc other : added) {
                    if (other.link() == q.link()) { // the other direction: the switch impairs both now
                        Netns.exec(network.namespace(other.node()), "tc", "qdisc", "del", "dev", other.device(), "root");
                    }
                }
            }
        }
        return kernel;
    }

    /** Removes everything {@code up} made (state file, plus anything named with this file's prefix). */
    public void down() throws IOException, InterruptedException {
        Path state = stateFile();
        Set<String> namespaces = new LinkedHashSet<>();
        List<long[]> pids = new ArrayList<>();
        List<String> switches = new ArrayList<>();
        if (Files.exists(state)) {
            for (String line : Files.readAllLines(state, StandardCharsets.UTF_8)) {
                String[] w = line.split(" ");
                if (w[0].equals("ns") && w.length == 2) {
                    namespaces.add(w[1]);
                } else if (w[0].equals("pid") && w.length == 3) {
                    pids.add(new long[]{Long.parseLong(w[1])});
                    switches.add(w[2]);
                }
            }
        }
        for (String ns : Netns.list()) {
            if (ns.startsWith(prefix + "-")) {
                namespaces.add(ns);
            }
        }
        for (int i = 0; i < pids.size(); i++) {
            long pid = pids.get(i)[0];
            if (stop(pid, 10_000)) {
                out.println("stopped switch " + switches.get(i) + " (pid " + pid + "); its counters:");
                Path log = logFile(switches.get(i));
                if (Files.exists(log)) {
                    out.println(report(log, switches.get(i)));
                }
            }
        }
        List<String> failures = new ArrayList<>();
        int removed = 0;
        for (String ns : namespaces) {
            try {
                if (Netns.exists(ns)) {
                    Netns.delete(ns);
                    removed++;
                }
            } catch (RuntimeException e) {
                failures.add(ns + ": " + e.getMessage());
            }
        }
        Files.deleteIfExists(state);
        int counters = StatDirectory.delete(List.of(StatDirectory.forWriting()), prefix);
        out.println(String.format(Locale.ROOT, "down: removed %d namespaces and %d counters files (prefix %s)", removed,
            counters, prefix));
        if (!failures.isEmpty()) {
            throw new IllegalStateException("could not remove: " + failures);
        }
    }

    /** SIGTERM (the switch prints its counters), then SIGKILL after {@code graceMs}; true if it was running. */
    private static boolean stop(long pid, long graceMs) {
        ProcessHandle h = ProcessHandle.of(pid).orElse(null);
        if (h == null || !h.isAlive()) {
            return false;
        }
        String cmd = h.info().commandLine().orElse("");
        if (!cmd.contains("switch")) {
            return false; // the pid was reused by something else: leave it alone
        }
        h.destroy();
        try {
            h.onExit().get(graceMs, TimeUnit.MILLISECONDS);
        } catch (Exception timeout) {
            h.destroyForcibly();
        }
        return true;
    }
}
