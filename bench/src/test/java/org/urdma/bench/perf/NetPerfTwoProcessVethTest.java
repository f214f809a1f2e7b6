package org.urdma.bench.perf;

import static org.junit.jupiter.api.Assertions.*;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.urdma.nativeio.netns.Topology;
import org.urdma.nativeio.netns.junit.RootAssumptions;
import org.urdma.transport.wire.FramingKind;

/**
 * {@code urdma perf} as users run it: two JVMs, each started with {@code ip netns exec} in its own namespace, joined
 * by a veth pair; the server is the one without a peer address. Every perf test on every service it applies to, in
 * RoCEv1 and RoCEv2 framing; the side written to (or reading) checks its memory; some runs are captured and the
 * captures checked as RoCE. One topology for the class; each run uses its own out-of-band port.
 */
class NetPerfTwoProcessVethTest {
    private static Topology topo;
    private static String nsClient, nsServer;
    private static final AtomicInteger PORT = new AtomicInteger(18600);
    /** Runs whose client also writes a capture: each framing gets WRITE/ACK, READ, atomics, UC and UD frames. */
    private static final Set<String> CAPTURED = Set.of("write-bw/RC", "read-lat/RC", "atomic-bw/RC", "write-lat/UC", "send-bw/UD");

    @BeforeAll
    static void veth() {
        RootAssumptions.assumeRoot();
        topo = Topology.create();
        try {
            nsClient = topo.namespace("pc");
            nsServer = topo.namespace("ps");
            topo.veth(nsClient, "eth0", nsServer, "eth0", Topology.LinkOptions.mtu(9000));
            topo.disableIpv6(nsClient);
            topo.disableIpv6(nsServer);
            topo.addAddress(nsClient, "eth0", "10.86.0.1/24");
            topo.addAddress(nsServer, "eth0", "10.86.0.2/24");
        } catch (RuntimeException e) {
            topo.close();
            throw e;
        }
    }

    @AfterAll
    static void teardown() {
        if (topo != null) topo.close();
    }

    /** Link and addresses of each side; the out-of-band exchange runs over the kernel's addresses .1/.2. */
    static List<String> sideArgs(boolean server, int port, Path pcap) {
        List<String> a = new ArrayList<>(List.of("--link", "afpacket:eth0", "--ip", server ? "10.86.0.12/24" : "10.86.0.11/24",
                "-p", String.valueOf(port)));
        if (pcap != null) a.addAll(List.of("--pcap", pcap.toString()));
        if (!server) a.add("10.86.0.2");
        return a;
    }

    static String[] perf(List<String> test, String framing, List<String> side) {
        List<String> a = new ArrayList<>(List.of("perf"));
        a.addAll(test);
        a.addAll(List.of("--framing", framing));
        a.addAll(side);
        return a.toArray(String[]::new);
    }

    @ParameterizedTest(name = "{0} {1} {2}")
    @MethodSource("org.urdma.bench.perf.PerfRunCheck#matrix")
    void everyPerfTestRunsBetweenTwoJvmsOverAVethPair(String test, String type, String framing, @TempDir Path dir) throws Exception {
        int port = PORT.getAndIncrement();
        Path pcap = CAPTURED.contains(test + "/" + type) ? dir.resolve("client.pcap") : null;
        List<String> t = PerfRunCheck.testArgs(test, type);
        try (PerfProcess server = PerfProcess.start("server", nsServer, perf(t, framing, sideArgs(true, port, null)));
             PerfProcess client = PerfProcess.start("client", nsClient, perf(t, framing, sideArgs(false, port, pcap)))) {
            int c = client.exit(90_000);
            int s = server.exit(30_000);
            PerfRunCheck.assertVerified(test, type, framing, server.output(), s, client.output(), c, "AF_PACKET eth0");
        }
        if (pcap != null) PerfRunCheck.assertCaptureIsValidRoce(pcap, FramingKind.parse(framing));
    }

    /**
     * The server JVM is killed (SIGKILL) in the middle of a write-bw: the client's next WRITEs are never acknowledged,
     * so after the configured local ACK timeout (--timeout 14: 67 ms) and retries (--retry 3) the first outstanding
     * WRITE completes with RETRY_EXC_ERR, the rest are flushed, and the client exits 1 saying so. Not a stall: the
     * client's stall limit (--cm-timeout 20) is far above the bound checked here.
     */
    @Test
    void killingTheServerMidWriteBwGivesRetryExceededThenFlushAndExitsNonZero() throws Exception {
        int port = PORT.getAndIncrement();
        List<String> t = List.of("write-bw", "-s", "65536", "-n", "100000000", "--timeout", "14", "--retry", "3",
                "--cm-timeout", "20");
        try (PerfProcess server = PerfProcess.start("server", nsServer, perf(t, "roce2", sideArgs(true, port, null)));
             PerfProcess client = PerfProcess.start("client", nsClient, perf(t, "roce2", sideArgs(false, port, null)))) {
            assertTrue(client.awaitOutput("#bytes", 60_000), "the run starts; " + client + "\n" + server);
            Thread.sleep(700); // WRITEs in flight
            assertTrue(client.isAlive(), "the client is still running when the server is killed; " + client);
            assertTrue(server.isAlive(), server.toString());
            server.kill();
            long killed = System.nanoTime();
            int exit = client.exit(15_000);
            long ms = (System.nanoTime() - killed) / 1_000_000;
            String out = client.output();
            assertEquals(1, exit, out);
            Matcher m = Pattern.compile("urdma perf write-bw: completion with error RETRY_EXC_ERR \\(vendor err \\d+\\) on wr_id \\d+ "
                    + "\\(RDMA_WRITE\\): the peer stopped acknowledging \\(dead or unreachable\\); then (\\d+) requests flushed "
                    + "\\(WR_FLUSH_ERR\\)").matcher(out);
            assertTrue(m.find(), out);
            assertTrue(Integer.parseInt(m.group(1)) > 0, "the outstanding WRITEs are flushed: " + out);
            assertFalse(out.contains("no progress for"), "an error completion, not the stall detector: " + out);
            // 67 ms x (1 + 3 retries) = 0.27 s, plus reaping the flush and the JVM's exit; the stall limit would be 20 s
            assertTrue(ms < 5_000, "the client exited " + ms + " ms after the kill; " + out);
        }
    }
}
