package org.urdma.tools.perf;

import static org.junit.jupiter.api.Assertions.*;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.urdma.nativeio.netns.Topology;
import org.urdma.nativeio.netns.junit.RootAssumptions;
import org.urdma.transport.wire.FramingKind;

/**
 * {@code urdma perf} as users run it: two JVMs, each started with {@code ip netns exec} in its own namespace, joined
 * by a veth pair; the server is the one without a peer address. Every perf test on every service it applies to, in
 * RoCEv1 and RoCEv2 framing; the side written to (or reading) checks its memory; some runs are captured and the
 * captures checked as RoCE. One topology for the class; each run uses its own out-of-band port. The runs start in
 * the first matrix test on {@link #LANES} lanes (a veth pair each) so two pairs of JVMs overlap their start-up; each test
 * invocation checks one run.
 */
@Tag("root")
class NetPerfTwoProcessVethTest {
    /** Server/client pairs run at once, each pair on its own veth pair (-Durdma.perf.lanes=N; 1 = one after another). */
    static final int LANES = Math.max(1, Integer.getInteger("urdma.perf.lanes", 2));
    private static Topology topo;
    private static final BlockingQueue<Lane> FREE = new LinkedBlockingQueue<>();
    private static Lane killLane;
    private static ExecutorService pool;
    private static Path captures;
    /** Every matrix run, started by the first matrix test on the lanes; each test invocation waits for its own. */
    private static final Map<String, Future<Run>> RUNS = new ConcurrentHashMap<>();
    private static final AtomicInteger PORT = new AtomicInteger(18600);
    /** Runs whose client also writes a capture: each framing gets WRITE/ACK, READ, atomics, UC and UD frames. */
    private static final Set<String> CAPTURED = Set.of("write-bw/RC", "read-lat/RC", "atomic-bw/RC", "write-lat/UC", "send-bw/UD");

    /** Two namespaces joined by a veth pair; kernel addresses 10.86.N.1/.2 (out of band), urdma's .11/.12. */
    record Lane(String nsClient, String nsServer, int n) {
        static Lane create(Topology t, int n) {
            Lane l = new Lane(t.namespace("c" + n), t.namespace("s" + n), n);
            t.veth(l.nsClient, "eth0", l.nsServer, "eth0", Topology.LinkOptions.mtu(9000));
            t.disableIpv6(l.nsClient);
            t.disableIpv6(l.nsServer);
            t.addAddress(l.nsClient, "eth0", "10.86." + n + ".1/24");
            t.addAddress(l.nsServer, "eth0", "10.86." + n + ".2/24");
            return l;
        }

        /** Link and addresses of one side. */
        List<String> sideArgs(boolean server, int port, Path pcap) {
            List<String> a = new ArrayList<>(List.of("--link", "afpacket:eth0", "--ip", "10.86." + n + (server ? ".12/24" : ".11/24"),
                    "-p", String.valueOf(port)));
            if (pcap != null) a.addAll(List.of("--pcap", pcap.toString()));
            if (!server) a.add("10.86." + n + ".2");
            return a;
        }
    }

    /** What one finished run left: both outputs and exit codes, the client's capture (or null). */
    record Run(String serverOut, int serverExit, String clientOut, int clientExit, Path pcap) {
    }

    @BeforeAll
    static void lanes() throws Exception {
        RootAssumptions.assumeRoot();
        topo = Topology.create();
        try {
            for (int i = 0; i < LANES; i++) FREE.add(Lane.create(topo, i));
            killLane = Lane.create(topo, LANES);
            captures = Files.createTempDirectory("urdma-perf-matrix");
        } catch (RuntimeException e) {
            topo.close();
            throw e;
        }
    }

    /** Starts every matrix run on the lanes, once, at the first matrix test (not when only others are selected). */
    static synchronized void startMatrix() {
        if (pool != null) return;
        pool = Executors.newFixedThreadPool(LANES, r -> Thread.ofPlatform().daemon().name("perf-lane").unstarted(r));
        PerfRunCheck.matrix().forEach(args -> {
            Object[] a = args.get();
            String test = (String) a[0], type = (String) a[1], framing = (String) a[2];
            RUNS.put(key(test, type, framing), pool.submit(() -> run(test, type, framing)));
        });
    }

    @AfterAll
    static void teardown() throws Exception {
        try {
            if (pool != null) {
                pool.shutdownNow(); // a run still going kills its two JVMs (PerfProcess.close in its finally)
                pool.awaitTermination(60, TimeUnit.SECONDS);
            }
        } finally {
            if (topo != null) topo.close();
            if (captures != null) {
                try (var files = Files.walk(captures)) {
                    files.sorted(java.util.Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
                }
            }
        }
    }

    static String key(String test, String type, String framing) {
        return test + "/" + type + "/" + framing;
    }

    static String[] perf(List<String> test, String framing, List<String> side) {
        List<String> a = new ArrayList<>(List.of("perf"));
        a.addAll(test);
        a.addAll(List.of("--framing", framing));
        a.addAll(side);
        return a.toArray(String[]::new);
    }

    /** One server JVM and one client JVM on a free lane, to the end. */
    static Run run(String test, String type, String framing) throws Exception {
        Lane lane = FREE.take();
        try {
            int port = PORT.getAndIncrement();
            Path pcap = CAPTURED.contains(test + "/" + type) ? captures.resolve(key(test, type, framing).replace('/', '-') + ".pcap") : null;
            List<String> t = PerfRunCheck.testArgs(test, type);
            try (PerfProcess server = PerfProcess.start("server", lane.nsServer, perf(t, framing, lane.sideArgs(true, port, null)));
                 PerfProcess client = PerfProcess.start("client", lane.nsClient, perf(t, framing, lane.sideArgs(false, port, pcap)))) {
                int c = client.exit(90_000);
                int s = server.exit(30_000);
                return new Run(server.output(), s, client.output(), c, pcap);
            }
        } finally {
            FREE.add(lane);
        }
    }

    @ParameterizedTest(name = "{0} {1} {2}")
    @MethodSource("org.urdma.tools.perf.PerfRunCheck#matrix")
    void everyPerfTestRunsBetweenTwoJvmsOverAVethPair(String test, String type, String framing) throws Exception {
        startMatrix();
        Run r;
        try {
            r = RUNS.get(key(test, type, framing)).get(5, TimeUnit.MINUTES);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof Error err) throw err; // a JVM that did not finish: its output is in the message
            throw e.getCause() instanceof Exception x ? x : e;
        }
        PerfRunCheck.assertVerified(test, type, framing, r.serverOut, r.serverExit, r.clientOut, r.clientExit, "AF_PACKET eth0");
        if (r.pcap != null) PerfRunCheck.assertCaptureIsValidRoce(r.pcap, FramingKind.parse(framing));
    }

    /**
     * The server JVM is killed (SIGKILL) in the middle of a write-bw: the client's next WRITEs are never acknowledged,
     * so after the configured local ACK timeout (--timeout 16: 268 ms) and retries (--retry 3) the first outstanding
     * WRITE completes with RETRY_EXC_ERR, the rest are flushed, and the client exits 1 saying so. Not a stall: the
     * client's stall limit (--cm-timeout 20) is far above the bound checked here.
     */
    @Test
    void killingTheServerMidWriteBwGivesRetryExceededThenFlushAndExitsNonZero() throws Exception {
        Killed k = killServerMidWriteBw("--timeout", "16", "--retry", "3", "--cm-timeout", "20");
        assertEquals(1, k.exit, k.out);
        Matcher m = Pattern.compile("urdma perf write-bw: completion with error RETRY_EXC_ERR \\(vendor err \\d+\\) on (?:wr_id|QP \\d+ request) \\d+ "
                + "\\(RDMA_WRITE\\): the peer stopped acknowledging \\(dead or unreachable\\), 0 sequence-error NAKs and 4 ACK "
                + "timeouts since the last progress, retries spent \\(--retry\\); then (\\d+) requests flushed "
                + "\\(WR_FLUSH_ERR\\)").matcher(k.out);
        assertTrue(m.find(), k.out);
        assertTrue(Integer.parseInt(m.group(1)) > 0, "the outstanding WRITEs are flushed: " + k.out);
        assertFalse(k.out.contains("no progress for"), "an error completion, not the stall detector: " + k.out);
        // 268 ms x (1 + 3 retries) = 1.07 s, plus reaping the flush and the JVM's exit; the stall limit would be 20 s
        assertTrue(k.ms < 8_000, "the client exited " + k.ms + " ms after the kill; " + k.out);
    }

    /**
     * perftest's default retry_cnt 7 means seven retries, as on a real NIC (rxe retries forever on 7; urdma follows the
     * IB specification): with the default --retry and --timeout (14: 67 ms) a killed server gives RETRY_EXC_ERR after
     * 8 x 67 ms, well before the client's stall limit (--cm-timeout 3) would end the run.
     */
    @Test
    void withTheDefaultRetryCountAKilledServerGivesRetryExceededBeforeTheStallLimit() throws Exception {
        Killed k = killServerMidWriteBw("--cm-timeout", "3");
        assertEquals(1, k.exit, k.out);
        assertTrue(k.out.contains("completion with error RETRY_EXC_ERR "), k.out);
        assertFalse(k.out.contains("no progress for"), "an error completion, not the stall detector: " + k.out);
        assertTrue(k.ms < 3_000, "the client exited " + k.ms + " ms after the kill; " + k.out);
    }

    record Killed(int exit, String out, long ms) {
    }

    /** A long write-bw whose server JVM gets SIGKILL once WRITEs are in flight; the client's exit, output and time. */
    static Killed killServerMidWriteBw(String... options) throws Exception {
        int port = PORT.getAndIncrement();
        Lane lane = killLane;
        List<String> t = new ArrayList<>(List.of("write-bw", "-s", "65536", "-n", "100000000"));
        t.addAll(List.of(options));
        try (PerfProcess server = PerfProcess.start("server", lane.nsServer, perf(t, "roce2", lane.sideArgs(true, port, null)));
             PerfProcess client = PerfProcess.start("client", lane.nsClient, perf(t, "roce2", lane.sideArgs(false, port, null)))) {
            // the side that prints perftest's columns when the run starts: the server with perftest's exchange (as
            // perftest's own server does), the client with urdma's
            long until = System.nanoTime() + 60_000_000_000L;
            while (!server.awaitOutput("#bytes", 50) && !client.awaitOutput("#bytes", 50)) {
                assertTrue(System.nanoTime() < until && client.isAlive() && server.isAlive(), "the run starts; " + client + "\n" + server);
            }
            Thread.sleep(700); // WRITEs in flight
            assertTrue(client.isAlive(), "the client is still running when the server is killed; " + client);
            assertTrue(server.isAlive(), server.toString());
            server.kill();
            long killed = System.nanoTime();
            int exit = client.exit(30_000);
            return new Killed(exit, client.output(), (System.nanoTime() - killed) / 1_000_000);
        }
    }
}
