package org.urdma.cli.topo;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.urdma.cli.UrdmaCli;
import org.urdma.nativeio.AfPacketOptions;
import org.urdma.nativeio.AfPacketSocket;
import org.urdma.nativeio.netns.Ip;
import org.urdma.nativeio.netns.Netns;
import org.urdma.nativeio.netns.junit.RootAssumptions;

import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@code urdma topo up/down} of the example file: frames cross the switch process, nothing is left behind. */
@Tag("root")
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class TopoCommandTest {
    @TempDir
    Path dir;

    @BeforeAll
    static void root() {
        RootAssumptions.assumeRoot();
    }

    private static String prefix() {
        String a = "abcdefghijklmnopqrstuvwxyz0123456789";
        SecureRandom r = new SecureRandom();
        StringBuilder sb = new StringBuilder("x");
        for (int i = 0; i < 5; i++) {
            sb.append(a.charAt(r.nextInt(a.length())));
        }
        return sb.toString();
    }

    private static Path example() {
        Path p = Path.of("..", "examples", "topologies", "two-hosts.yaml");
        assertTrue(Files.exists(p), "example topology at " + p.toAbsolutePath());
        return p;
    }

    /** Sends {@code n} frames from eth0 in {@code a} to eth0 in {@code b}; returns each arrival's one-way delay, ms. */
    private static double[] exchange(String a, String b, int n) throws Exception {
        AfPacketOptions o = AfPacketOptions.defaults().version(AfPacketOptions.Version.V2).protocol(0x88B6)
            .rxRing(1 << 16, 4, 2048, 0).txRing(2048, 64);
        try (AfPacketSocket rx = Netns.call(b, () -> AfPacketSocket.open("eth0", o));
             AfPacketSocket tx = Netns.call(a, () -> AfPacketSocket.open("eth0", o))) {
            List<Double> delays = new java.util.ArrayList<>();
            for (int i = 0; i < n; i++) {
                ByteBuffer f = ByteBuffer.allocate(64);
                f.put(new byte[]{2, 0, 0, 0, 0, 2, 2, 0, 0, 0, 0, 1}).putShort((short) 0x88B6).putLong(System.nanoTime());
                tx.send(MemorySegment.ofArray(f.array()), 64);
                long end = System.nanoTime() + 2_000_000_000L; // generous: a loaded machine can starve the switch processes
                boolean[] got = {false};
                while (!got[0] && System.nanoTime() < end) {
                    rx.receive(fr -> {
                        long sent = ByteBuffer.wrap(fr.toArray()).getLong(14);
                        delays.add((System.nanoTime() - sent) / 1e6);
                        got[0] = true;
                    });
                    if (!got[0]) {
                        rx.pollIn(1);
                    }
                }
            }
            return delays.stream().mapToDouble(Double::doubleValue).toArray();
        }
    }

    private static Set<String> rootLinkNames() {
        Set<String> names = new HashSet<>();
        for (String line : Ip.ip("-o", "link", "show").split("\n")) {
            String[] f = line.split(": ");
            if (f.length > 1) {
                names.add(f[1].split("@")[0]);
            }
        }
        return names;
    }

    private static List<String> ours(String prefix) {
        return Netns.list().stream().filter(n -> n.startsWith(prefix + "-")).toList();
    }

    @Test
    void upRunsTheSwitchBetweenTheHostsAndDownLeavesNothingBehind() throws Exception {
        String prefix = prefix();
        List<String> before = Netns.list();
        Set<String> rootLinks = rootLinkNames();
        Path file = example();
        try {
            int up = UrdmaCli.commandLine().execute("topo", "up", file.toString(), "--state-dir", dir.toString(),
                "--prefix", prefix);
            assertEquals(0, up);
            assertEquals(List.of(prefix + "-h1", prefix + "-h2", prefix + "-s1"), ours(prefix).stream().sorted().toList());
            assertTrue(Files.exists(dir.resolve(prefix + ".state")));
            long rxBefore = rxFromH1(run("stat", file.toString(), "--prefix", prefix));
            // frames h1 -> h2 through the switch process, which adds 20 ms ± 2 ms towards h2
            double[] delays = exchange(prefix + "-h1", prefix + "-h2", 10);
            assertTrue(delays.length >= 7, "frames crossed the switch (0.5 % loss configured): " + delays.length);
            for (double d : delays) {
                assertTrue(d >= 17.9 && d < 200, "one-way delay shows the 20 ms ± 2 ms impairment: " + d + " ms");
            }
            // the switch process's live counters, read while it runs
            Thread.sleep(300); // the driver publishes every 100 ms
            String stat = run("stat", file.toString(), "--prefix", prefix);
            assertTrue(stat.contains(prefix + "-s1.counters: pid ") && stat.contains(", running,"), stat);
            assertTrue(rxFromH1(stat) >= rxBefore + 10, "the 10 frames from h1 are counted (before: " + rxBefore + "): " + stat);
        } finally {
            int down = UrdmaCli.commandLine().execute("topo", "down", file.toString(), "--state-dir", dir.toString(),
                "--prefix", prefix);
            assertEquals(0, down);
        }
        assertTrue(ours(prefix).isEmpty(), "no namespace of ours left");
        assertTrue(org.urdma.transport.counters.StatDirectory.find(
            List.of(org.urdma.transport.counters.StatDirectory.forWriting()), prefix).isEmpty(), "down removed the counters files");
        Set<String> added = rootLinkNames();
        added.removeAll(rootLinks);
        // other test runs may add links of their own meanwhile; ours are eth0 / pN (made inside namespaces)
        assertTrue(added.stream().noneMatch(n -> n.equals("eth0") || n.matches("p[0-9]+")), "stray links: " + added);
        List<String> newNamespaces = Netns.list().stream().filter(n -> !before.contains(n)).toList();
        assertTrue(newNamespaces.stream().noneMatch(n -> n.startsWith(prefix)), "left behind: " + newNamespaces);
        assertFalse(Files.exists(dir.resolve(prefix + ".state")));
        String log = Files.readString(dir.resolve(prefix + "-s1.log"));
        assertTrue(log.contains("switch s1:") && log.contains("port 1 p1 -> h2"), "the switch printed its counters: " + log);
        assertTrue(log.contains("impairment: switch stage"), log);
    }

    @Test
    void twoSwitchProcessesInALineForwardAndImpairTheirLinkOnce() throws Exception {
        String prefix = prefix();
        Path file = Path.of("..", "examples", "topologies", "two-switches.yaml");
        try {
            assertEquals(0, UrdmaCli.commandLine().execute("topo", "up", file.toString(), "--state-dir", dir.toString(),
                "--prefix", prefix));
            double[] delays = exchange(prefix + "-h1", prefix + "-h2", 10);
            assertEquals(10, delays.length, "every frame crossed both switches");
            double min = java.util.Arrays.stream(delays).min().orElseThrow();
            // never early; that it is applied once (not also at s2's ingress) the switches' counters say below,
            // as an upper bound on the delay would fail whenever a busy machine starves the switch processes
            assertTrue(min >= 9.9, "the s1 -> s2 delay of 10 ms: " + java.util.Arrays.toString(delays));
        } finally {
            assertEquals(0, UrdmaCli.commandLine().execute("topo", "down", file.toString(), "--state-dir",
                dir.toString(), "--prefix", prefix));
        }
        assertTrue(ours(prefix).isEmpty());
        String log2 = Files.readString(dir.resolve(prefix + "-s2.log"));
        assertTrue(log2.contains("port 0 p0 -> s1: rx 10 frames"), "s2 got the 10 frames from s1: " + log2);
        assertFalse(log2.contains("impairment in:"), "s2 impairs nothing: " + log2);
        String log1 = Files.readString(dir.resolve(prefix + "-s1.log"));
        assertTrue(log1.contains("impairment in: none; out: offered 10 "), "s1 delays the 10 frames at its egress: " + log1);
    }

    private static long rxFromH1(String stat) {
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("switch s1 port 0 -> h1: rx (\\d+) frames").matcher(stat);
        assertTrue(m.find(), stat);
        return Long.parseLong(m.group(1));
    }

    /** Runs a urdma command in this JVM and returns what it printed. */
    private static String run(String... args) {
        java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
        java.io.PrintStream saved = System.out;
        try {
            System.setOut(new java.io.PrintStream(out, true, java.nio.charset.StandardCharsets.UTF_8));
            UrdmaCli.commandLine().execute(args);
        } finally {
            System.setOut(saved);
        }
        return out.toString(java.nio.charset.StandardCharsets.UTF_8);
    }

    @Test
    void kernelImpairmentWithoutSchNetemFailsNamingTheLineBeforeMakingAnything() throws Exception {
        org.junit.jupiter.api.Assumptions.assumeTrue(
            org.urdma.switchemu.topo.NetemProbe.probe() == org.urdma.switchemu.topo.NetemProbe.Result.ABSENT,
            "this kernel has sch_netem");
        String prefix = prefix();
        Path file = dir.resolve("kernel.yaml");
        Files.writeString(file, Files.readString(example()).replace("impairAtoB: {delay: 20ms, jitter: 2ms, loss: 0.5%}",
            "impairAtoB: {delay: 20ms, jitter: 2ms, loss: 0.5%}\n    impairment: kernel"));
        java.io.StringWriter err = new java.io.StringWriter();
        int rc = UrdmaCli.commandLine().setErr(new java.io.PrintWriter(err, true)).execute("topo", "up", file.toString(),
            "--state-dir", dir.toString(), "--prefix", prefix);
        assertEquals(2, rc, err.toString());
        assertTrue(err.toString().startsWith("urdma topo up: " + file + ":15: link s1-h2") && err.toString().contains("no sch_netem"),
            err.toString());
        assertTrue(ours(prefix).isEmpty());
        assertFalse(Files.exists(dir.resolve(prefix + ".state")));
    }

    @Test
    void inProcessUpMakesNoNamespacesAndPrintsTheCounters() throws Exception {
        String prefix = prefix();
        String text = run("topo", "up", example().toString(), "--in-process", "--duration", "300ms", "--prefix", prefix,
            "--state-dir", dir.toString());
        assertTrue(text.startsWith("in-process: asked for (--in-process)"), text);
        assertTrue(text.contains("impairment: switch stage"), text);
        assertTrue(text.contains("flow 0: h1 -> h2") && text.contains("port 1 p1 -> h2: rx 0 frames"), text);
        assertTrue(text.contains("impairment in: none; out: offered "), text);
        assertTrue(ours(prefix).isEmpty(), "no namespaces");
        assertFalse(Files.exists(dir.resolve(prefix + ".state")));
        // its live counters file stays (stopped) until topo down
        assertTrue(text.contains("live counters: "), text);
        assertEquals(0, UrdmaCli.commandLine().execute("topo", "down", example().toString(), "--state-dir", dir.toString(),
            "--prefix", prefix));
        assertTrue(org.urdma.transport.counters.StatDirectory.find(
            List.of(org.urdma.transport.counters.StatDirectory.forWriting()), prefix).isEmpty(), "down removed the counters file");
    }

    @Test
    void downCleansUpAfterAnUpProcessThatWasKilled() throws Exception {
        String prefix = prefix();
        Path file = example();
        List<String> cmd = new java.util.ArrayList<>(TopoUpCommand.launcher());
        cmd.addAll(List.of("topo", "up", file.toString(), "--state-dir", dir.toString(), "--prefix", prefix));
        Process up = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(dir.resolve("up.out").toFile()).start();
        Path state = dir.resolve(prefix + ".state");
        long switchPid = -1;
        try {
            long end = System.nanoTime() + 60_000_000_000L;
            while (switchPid < 0 && System.nanoTime() < end && up.isAlive()) {
                if (Files.exists(state)) {
                    for (String line : Files.readAllLines(state)) {
                        if (line.startsWith("pid ")) {
                            switchPid = Long.parseLong(line.split(" ")[1]);
                        }
                    }
                }
                Thread.sleep(20);
            }
            assertTrue(switchPid > 0, "up started a switch: " + Files.readString(dir.resolve("up.out")));
        } finally {
            up.destroyForcibly().waitFor(); // SIGKILL: up's own clean-up does not run
        }
        try {
            assertFalse(ours(prefix).isEmpty(), "the killed up left its namespaces");
        } finally {
            assertEquals(0, UrdmaCli.commandLine().execute("topo", "down", file.toString(), "--state-dir", dir.toString(),
                "--prefix", prefix));
        }
        assertTrue(ours(prefix).isEmpty(), "down removed the namespaces");
        long pid = switchPid;
        long end = System.nanoTime() + 10_000_000_000L;
        while (ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false) && System.nanoTime() < end) {
            Thread.sleep(50);
        }
        assertFalse(ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false), "down stopped the orphaned switch");
        assertFalse(Files.exists(state));
    }

    @Test
    void aFailedUpRemovesWhatItMadeAndDownCleansLeftovers() throws Exception {
        String prefix = prefix();
        Path file = example();
        int up = UrdmaCli.commandLine().execute("topo", "up", file.toString(), "--state-dir", dir.toString(),
            "--prefix", prefix, "--ready-timeout", "1");
        assertNotEquals(0, up, "the switch cannot be ready within 1 ms");
        assertTrue(ours(prefix).isEmpty(), "a failed up removes its namespaces");
        assertFalse(Files.exists(dir.resolve(prefix + ".state")));
        // a leftover from an 'up' that was killed: down finds it by the prefix
        Netns.create(prefix + "-h1");
        try {
            assertEquals(0, UrdmaCli.commandLine().execute("topo", "down", file.toString(), "--state-dir",
                dir.toString(), "--prefix", prefix));
        } finally {
            Netns.delete(prefix + "-h1");
        }
        assertTrue(ours(prefix).isEmpty());
    }
}
