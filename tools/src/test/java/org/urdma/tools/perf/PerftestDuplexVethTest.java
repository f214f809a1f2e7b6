package org.urdma.tools.perf;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;
import org.urdma.tools.perf.NetPerfVethTest.Side;
import org.urdma.nativeio.netns.Topology;
import org.urdma.nativeio.netns.junit.RootAssumptions;

/**
 * -b and --report-both over perftest's exchange, urdma on both sides of a veth pair (PerftestFlagsInteropTest runs
 * them against the stock tools): both directions at once, the summed row, each side's own row, each side's memory
 * checked after the peer's run; a side with -b against one without fails naming -b, on either role.
 */
@Tag("root")
class PerftestDuplexVethTest {
    private static final Pattern ROW = Pattern.compile("(?m)^ 4096\\s+(\\d+)\\s+([0-9.]+)\\s+([0-9.]+)\\s+([0-9.]+)$");

    @BeforeAll
    static void root() {
        RootAssumptions.assumeRoot();
    }

    @ParameterizedTest
    @ValueSource(strings = {"write-bw", "send-bw"})
    void bothDirectionsRunAtOnceAndTheRowIsTheirSum(String test) throws Exception {
        Side[] s = NetPerfVethTest.run(test, "roce2", null, "-b", "--report-both", "-s", "4096", "-n", "2000", "-q", "2");
        assertEquals(0, s[1].exit(), s[1].out());
        assertEquals(0, s[0].exit(), s[0].out());
        for (Side side : s) {
            Matcher m = ROW.matcher(side.out());
            double[] avg = new double[3];
            for (int k = 0; k < 3; k++) {
                assertTrue(m.find(), "row " + k + " (sum, local, remote)\n" + side.out());
                assertEquals(4000, Long.parseLong(m.group(1)), "n x q iterations\n" + side.out());
                avg[k] = Double.parseDouble(m.group(3));
            }
            assertEquals(avg[1] + avg[2], avg[0], 0.02 + avg[0] * 1e-3, "the first row sums both directions\n" + side.out());
            assertTrue(side.out().contains(" Local results: ") && side.out().contains(" Remote results: "), side.out());
            assertTrue(side.out().contains(test.equals("write-bw") ? "remote memory verified: 4096 bytes match the client's pattern"
                    : "4096-byte messages received: 4000"), side.out());
        }
    }

    /** One side with -b, the other without: the -b side or the other fails naming -b at once, and neither hangs. */
    @ParameterizedTest(name = "{0}, -b on the server: {1}")
    @CsvSource({"write-bw,true", "write-bw,false", "send-bw,true", "send-bw,false"})
    void aSideWithoutBAgainstOneWithBFailsNamingTheFlag(String test, boolean serverB) throws Exception {
        String[] base = {"-s", "4096", "-n", "2000", "--cm-timeout", "10"};
        String[] withB = java.util.stream.Stream.concat(java.util.Arrays.stream(base), java.util.stream.Stream.of("-b")).toArray(String[]::new);
        Side server, client;
        long t0;
        java.io.ByteArrayOutputStream errors = new java.io.ByteArrayOutputStream();
        java.io.PrintStream stderr = System.err;
        System.setErr(new java.io.PrintStream(errors, true, java.nio.charset.StandardCharsets.UTF_8)); // PerfRunner's one-line errors
        try (Topology t = Topology.create()) {
            String a = t.namespace("a"), b = t.namespace("b");
            t.veth(a, "eth0", b, "eth0", Topology.LinkOptions.mtu(9000));
            t.disableIpv6(a);
            t.disableIpv6(b);
            t.addAddress(a, "eth0", "10.82.0.1/24");
            t.addAddress(b, "eth0", "10.82.0.2/24");
            t0 = System.nanoTime();
            CompletableFuture<Side> sf = CompletableFuture.supplyAsync(() -> NetPerfVethTest.call(b, test, "roce2", "10.82.0.12/24", null, null,
                    serverB ? withB : base));
            client = NetPerfVethTest.call(a, test, "roce2", "10.82.0.11/24", "10.82.0.2", null, serverB ? base : withB);
            server = sf.get(90, TimeUnit.SECONDS);
        } finally {
            System.setErr(stderr);
        }
        long ms = (System.nanoTime() - t0) / 1_000_000L;
        String both = "server:\n" + server.out() + "\nclient:\n" + client.out() + "\nstderr:\n" + errors;
        assertTrue(server.exit() != 0 || client.exit() != 0, "a mismatch in -b must not pass\n" + both);
        assertTrue(both.contains(": -b: "), "the failing side names -b\n" + both);
        // sooner than --cm-timeout (10 s): no case waits for a timeout to notice
        assertTrue(ms < 8_000, "failed before any timeout, took " + ms + " ms\n" + both);
        assertNotEquals(0, server.exit() + client.exit());
    }
}
