package org.urdma.bench.perf;

import java.io.BufferedReader;
import org.urdma.cli.Range;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.urdma.nativeio.NetInterface;
import org.urdma.nativeio.netns.Privileges;
import org.urdma.nativeio.netns.Topology;
import org.urdma.transport.port.PortIdentity;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code urdma perf lat-vs-tcp} (root): send latency beside kernel TCP and raw AF_PACKET, in one run. Makes two namespaces joined by a veth
 * pair and, interleaved round by round, runs three ping-pongs between two processes (one JVM per side): kernel TCP
 * (TCP_NODELAY), {@code urdma perf send-lat} over AF_PACKET, and raw AF_PACKET frames without the engine (the
 * floor). Prints each round's half-round-trip p50s, the load average, and urdma's p50 over TCP's.
 */
@Command(name = "lat-vs-tcp", mixinStandardHelpOptions = true,
        description = "send-lat p50 beside a TCP_NODELAY ping-pong and a raw AF_PACKET ping-pong on one veth pair, in one run (root).")
public final class LatVsTcpCommand implements Callable<Integer> {
    @Range(min = 1, max = 4096, why = "one frame")
    @Option(names = {"-s", "--size"}, description = "message size in bytes (default: ${DEFAULT-VALUE})")
    int size = 8;

    @Range(min = 5, max = 100_000_000)
    @Option(names = {"-n", "--iters"}, description = "measured ping-pongs per run, after a warm-up of half as many for each of TCP, "
            + "raw and urdma (send-lat --warmup-iters on both sides; all three are Java, and at 20000 the JIT still compiles "
            + "during much of a run) (default: ${DEFAULT-VALUE})")
    int iters = 100_000;

    @Range(min = 1)
    @Option(names = "--rounds", description = "rounds of TCP, urdma, raw, interleaved (default: ${DEFAULT-VALUE})")
    int rounds = 3;

    @Option(names = {"-F", "--framing"}, description = "urdma framing: roce1, roce2 … (default: ${DEFAULT-VALUE})")
    String framing = "roce2";

    @Option(names = {"-c", "--connection"}, description = "urdma transport: RC, UC or UD. RC sends two frames per hop (the "
            + "message and the ACK of the peer's, which perftest's loop waits for), UC and UD one (default: ${DEFAULT-VALUE})")
    String connection = "RC";

    @Option(names = "--driver", description = "urdma engine driver: inline or thread (default: ${DEFAULT-VALUE})")
    String driver = "inline";

    @Option(names = "--idle", description = "urdma idle: busy-spin (inline: spin on the CQ; thread: spinning agent), backoff, or poll "
            + "(sleep in poll(2) on the socket after a few empty passes) (default: ${DEFAULT-VALUE})")
    String idle = "busy-spin";

    @Option(names = "--port-mac", description = "own: each urdma port has its own MAC, as in veth-bw (the kernel drops the other "
            + "host's RoCEv2 frames at once); interface: the veth's MAC (the kernel's IP stack also routes every RoCEv2 frame, "
            + "~0.5 us per hop here) (default: ${DEFAULT-VALUE})")
    String portMac = "own";

    @Range(min = 1280, max = 65535)
    @Option(names = "--mtu", description = "veth MTU (default: ${DEFAULT-VALUE})")
    int mtu = 1500;

    @Option(names = "--no-raw", description = "skip the raw AF_PACKET floor")
    boolean noRaw;

    @Range(min = 1)
    @Option(names = "--timeout", description = "seconds one process may take before the run fails (default: ${DEFAULT-VALUE})")
    int timeoutSeconds = 180;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    PrintStream out = System.out;

    /** The urdma ports' own MACs (--port-mac own), and the roce2-shaped floor's. */
    static final String SERVER_PORT_MAC = "02:75:72:64:00:0c", CLIENT_PORT_MAC = "02:75:72:64:00:0b";

    private static final Pattern TCP_P50 = Pattern.compile("TCP ping-pong .* p50 ([0-9.]+)");
    private static final Pattern RAW_P50 = Pattern.compile("raw AF_PACKET ping-pong .* p50 ([0-9.]+)");

    /** One round's half-round-trip p50s (µs; NaN when skipped) and the 1-minute load average after it. */
    record Round(double tcp, double urdma, double raw, double load) {
    }

    @Override
    public Integer call() throws Exception {
        if (size < 1 || iters < 10 || rounds < 1) throw new CommandLine.ParameterException(spec.commandLine(), "-s >= 1, -n >= 10, --rounds >= 1");
        if (!portMac.equals("own") && !portMac.equals("interface")) {
            throw new CommandLine.ParameterException(spec.commandLine(), "--port-mac: own or interface, was '" + portMac + "'");
        }
        if (!java.util.Set.of("RC", "UC", "UD").contains(connection.toUpperCase(Locale.ROOT))) {
            throw new CommandLine.ParameterException(spec.commandLine(), "-c/--connection: RC, UC or UD, was '" + connection + "'");
        }
        if (!Privileges.isRoot()) {
            System.err.println("urdma perf lat-vs-tcp: needs root (creates two network namespaces and a veth pair)");
            return 1;
        }
        try {
            return measure();
        } catch (IllegalStateException e) {
            out.flush();
            System.err.println("urdma perf lat-vs-tcp: " + e.getMessage());
            return 1;
        }
    }

    private int measure() throws Exception {
        List<Round> results = new ArrayList<>();
        // an RC hop carries two frames (the message and the ACK of the peer's, which perftest's loop waits for): its floor
        boolean rc = connection.equalsIgnoreCase("RC");
        List<Double> raw2 = new ArrayList<>(), shaped = new ArrayList<>();
        try (Topology t = Topology.create()) {
            String a = t.namespace("a"), b = t.namespace("b");
            t.veth(a, "eth0", b, "eth0", Topology.LinkOptions.mtu(mtu));
            t.disableIpv6(a);
            t.disableIpv6(b);
            t.addAddress(a, "eth0", "10.94.0.1/24");
            t.addAddress(b, "eth0", "10.94.0.2/24");
            String peerMac = PortIdentity.macString(t.call(b, () -> NetInterface.lookup("eth0").mac()));
            out.printf(Locale.ROOT, "veth pair %s/eth0 <-> %s/eth0, MTU %d; %d B messages, %d iterations per run (+%d warm-up), "
                    + "%d rounds; urdma: %s %s, --driver %s --idle %s, port MAC %s; %d cores; ICRC: %s; Netty: %s%n", a, b, mtu, size, iters,
                    iters / 2, rounds, connection, framing, driver, idle, portMac,
                    Runtime.getRuntime().availableProcessors(), org.urdma.transport.wire.Icrc.implementation(),
                    org.urdma.transport.cm.ConnectionManager.nettyTransport());
            out.printf("%-6s %-18s %-20s %-20s %-14s %s%n", "round", "TCP half-RTT p50", "urdma send-lat p50", "raw AF_PACKET p50",
                    "urdma/TCP", "load avg (1 min)");
            Process tcpServer = start(b, TcpBaseline.class, "server", "18999");
            try {
                awaitLine(tcpServer, "TCP baseline server on");
                for (int r = 1; r <= rounds; r++) {
                    double tcp = p50(run(a, TcpBaseline.class, "pingpong", "10.94.0.2", "18999", String.valueOf(size),
                            String.valueOf(iters)), TCP_P50, "TCP ping-pong");
                    double urdma = urdma(a, b);
                    double raw = noRaw ? Double.NaN : raw(a, b, peerMac, 1);
                    if (rc && !noRaw) raw2.add(raw(a, b, peerMac, 2));
                    // the same floor with the frames urdma's ports send (IPv4/UDP, port MACs the kernel does not own)
                    if (!noRaw) shaped.add(raw(a, b, peerMac, rc ? 2 : 1, true));
                    Round x = new Round(tcp, urdma, raw, load());
                    results.add(x);
                    out.printf(Locale.ROOT, "%-6d %-18.2f %-20.2f %-20s %-14.3f %.2f%n", r, tcp, urdma,
                            noRaw ? "-" : String.format(Locale.ROOT, "%.2f", raw), urdma / tcp, x.load());
                    out.flush();
                }
            } finally {
                tcpServer.destroy();
                tcpServer.waitFor(5, TimeUnit.SECONDS);
            }
        }
        double tcp = median(results.stream().mapToDouble(Round::tcp).toArray());
        double urdma = median(results.stream().mapToDouble(Round::urdma).toArray());
        double raw = median(results.stream().mapToDouble(Round::raw).toArray());
        out.printf(Locale.ROOT, "%-6s %-18.2f %-20.2f %-20s %-14.3f%n", "median", tcp, urdma, noRaw ? "-" : String.format(Locale.ROOT, "%.2f", raw),
                urdma / tcp);
        out.printf(Locale.ROOT, "send-lat %d B p50 / TCP ping-pong half round trip p50 = %.3f (target: <= 0.5)%s%n", size,
                urdma / tcp, noRaw ? "" : String.format(Locale.ROOT, "; raw AF_PACKET floor = %.3f of TCP", raw / tcp));
        if (!raw2.isEmpty()) {
            double r2 = median(raw2.stream().mapToDouble(Double::doubleValue).toArray());
            out.printf(Locale.ROOT, "RC floor: raw AF_PACKET ping-pong with 2 frames per hop (the message and the ACK it owes, one send()) "
                    + "p50 %.2f us = %.3f of TCP; urdma adds %.2f us per hop%n", r2, r2 / tcp, urdma - r2);
        }
        if (!shaped.isEmpty()) {
            double f = median(shaped.stream().mapToDouble(Double::doubleValue).toArray());
            out.printf(Locale.ROOT, "the same floor with urdma's frames (RoCEv2 IPv4/UDP, %d B, to port MACs the kernel does not own) p50 "
                    + "%.2f us; urdma adds %.2f us per hop above it%n", RawPingPong.roce2FrameLength(size), f, urdma - f);
        }
        return 0;
    }

    private double urdma(String a, String b) throws Exception {
        // the same warm-up as TCP's and the raw floor's: all three are Java on the JIT, measured in steady state
        List<String> common = List.of("-s", String.valueOf(size), "-n", String.valueOf(iters), "--warmup-iters", String.valueOf(iters / 2),
                "-c", connection, "--framing", framing, "--driver", driver,
                "--idle", idle, "--link", "afpacket:eth0");
        Process server = start(b, org.urdma.cli.UrdmaCli.class, concat(List.of("perf", "send-lat"), common, List.of("--ip", "10.94.0.12/24"),
                mac(SERVER_PORT_MAC)));
        try {
            awaitLine(server, "* Waiting for client to connect");
            String client = run(a, org.urdma.cli.UrdmaCli.class, concat(List.of("perf", "send-lat"), common,
                    List.of("--ip", "10.94.0.11/24", "10.94.0.2"), mac(CLIENT_PORT_MAC)));
            Matcher m = Pattern.compile("(?m)^ " + size + "\\s+" + iters + "\\s+([0-9.]+)\\s+([0-9.]+)\\s+([0-9.]+)").matcher(client);
            if (!m.find()) throw new IllegalStateException("urdma send-lat printed no result row:\n" + client);
            if (!server.waitFor(timeoutSeconds, TimeUnit.SECONDS)) throw new IllegalStateException("urdma send-lat server did not end");
            return Double.parseDouble(m.group(3)); // t_typical: the median
        } finally {
            server.destroyForcibly();
        }
    }

    /** The --mac option for a urdma side, per --port-mac. */
    private List<String> mac(String own) {
        return portMac.equals("own") ? List.of("--mac", own) : List.of();
    }

    /** The raw ping-pong's half-round-trip p50 with {@code perHop} frames per hop (one send() each way). */
    private double raw(String a, String b, String peerMac, int perHop) throws Exception {
        return raw(a, b, peerMac, perHop, false);
    }

    /** With {@code roce2}, RawPingPong's roce2 frames between the port MACs urdma's sides use. */
    private double raw(String a, String b, String peerMac, int perHop, boolean roce2) throws Exception {
        List<String> echoArgs = new ArrayList<>(List.of("echo", "eth0", String.valueOf(perHop)));
        List<String> pingArgs = new ArrayList<>(List.of("ping", "eth0", roce2 ? SERVER_PORT_MAC : peerMac, String.valueOf(size),
                String.valueOf(iters), String.valueOf(perHop)));
        if (roce2) {
            echoArgs.addAll(List.of("roce2", SERVER_PORT_MAC));
            pingArgs.addAll(List.of("roce2", CLIENT_PORT_MAC));
        }
        Process echo = start(b, RawPingPong.class, echoArgs);
        try {
            awaitLine(echo, "raw echo on");
            return p50(run(a, RawPingPong.class, pingArgs), RAW_P50, "raw ping-pong");
        } finally {
            echo.destroy();
            echo.waitFor(5, TimeUnit.SECONDS);
        }
    }

    private static double p50(String output, Pattern p, String what) {
        Matcher m = p.matcher(output);
        if (!m.find()) throw new IllegalStateException(what + " printed no p50:\n" + output);
        return Double.parseDouble(m.group(1));
    }

    static double load() {
        try {
            return Double.parseDouble(Files.readString(Path.of("/proc/loadavg")).split(" ")[0]);
        } catch (IOException | RuntimeException e) {
            return Double.NaN;
        }
    }

    static double median(double[] v) {
        double[] s = v.clone();
        Arrays.sort(s);
        return s.length == 0 ? Double.NaN : s.length % 2 == 1 ? s[s.length / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
    }

    @SafeVarargs
    private static List<String> concat(List<String>... parts) {
        List<String> all = new ArrayList<>();
        for (List<String> p : parts) all.addAll(p);
        return all;
    }

    /** A JVM running {@code main} in namespace {@code ns}, with this JVM's runtime flags and class path. */
    private Process start(String ns, Class<?> main, String... args) throws IOException {
        return start(ns, main, List.of(args));
    }

    private Process start(String ns, Class<?> main, List<String> args) throws IOException {
        List<String> cmd = new ArrayList<>(List.of("ip", "netns", "exec", ns,
                ProcessHandle.current().info().command().orElse(Path.of(System.getProperty("java.home"), "bin", "java").toString())));
        cmd.add("--enable-native-access=ALL-UNNAMED");
        for (String f : ManagementFactory.getRuntimeMXBean().getInputArguments()) {
            if ((f.startsWith("--add-") || f.startsWith("--sun-misc") || f.startsWith("-Xm") || f.startsWith("-XX:")
                    || f.startsWith("-Durdma.") || f.startsWith("-agentpath:"))
                    && !cmd.contains(f)) {
                cmd.add(f);
            }
        }
        cmd.addAll(List.of("-cp", System.getProperty("java.class.path"), main.getName()));
        cmd.addAll(args);
        return new ProcessBuilder(cmd).redirectErrorStream(true).start();
    }

    /** Runs to the end; its output, or an exception with it when it failed or took too long. */
    private String run(String ns, Class<?> main, String... args) throws Exception {
        return run(ns, main, List.of(args));
    }

    private String run(String ns, Class<?> main, List<String> args) throws Exception {
        Process p = start(ns, main, args);
        p.getOutputStream().close();
        java.util.concurrent.CompletableFuture<String> text = java.util.concurrent.CompletableFuture.supplyAsync(() -> {
            try {
                return new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            } catch (IOException e) {
                return "";
            }
        });
        if (!p.waitFor(timeoutSeconds, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new IllegalStateException(main.getSimpleName() + " " + args + " took more than " + timeoutSeconds + " s");
        }
        String o = text.get(10, TimeUnit.SECONDS);
        if (p.exitValue() != 0) throw new IllegalStateException(main.getSimpleName() + " " + args + " exited " + p.exitValue() + ":\n" + o);
        return o;
    }

    /** Waits for a server's ready line; its later output is drained so it never blocks on a full pipe. */
    private void awaitLine(Process p, String prefix) throws IOException {
        BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
        StringBuilder seen = new StringBuilder();
        String line;
        while ((line = r.readLine()) != null) {
            seen.append(line).append('\n');
            if (line.startsWith(prefix)) {
                Thread.ofPlatform().daemon().start(() -> {
                    try {
                        while (r.readLine() != null) {
                            // discard
                        }
                    } catch (IOException ignored) {
                        // the process ended
                    }
                });
                return;
            }
        }
        throw new IllegalStateException("server ended before it was ready:\n" + seen);
    }
}
