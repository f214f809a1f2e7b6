package org.urdma.tools.pingpong;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.urdma.nativeio.netns.Netns;
import org.urdma.nativeio.netns.Topology;
import org.urdma.nativeio.netns.junit.RootAssumptions;
import picocli.CommandLine;

/** Two {@code urdma pingpong} sides in two namespaces over a veth pair (AF_PACKET), one thread per side. */
@Tag("root")
class PingpongVethTest {
    @BeforeAll
    static void root() {
        RootAssumptions.assumeRoot();
    }

    record Side(int exit, String out) {
    }

    /**
     * Waits until the server in {@code ns} listens on pingpong's port (or has ended): a client started before then is
     * refused, and a fixed head start is too short on a loaded machine (the server's first run loads its classes).
     */
    static void awaitListening(Topology t, String ns, CompletableFuture<?> server) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        String port = ":" + new PingpongCommand().port + " ";
        while (!server.isDone() && !t.exec(ns, "ss", "-ltnH").contains(port)) {
            if (System.nanoTime() - deadline > 0) throw new AssertionError("the pingpong server did not listen within 30 s");
            Thread.sleep(20);
        }
    }

    static Side side(String ns, String... args) throws Exception {
        PingpongCommand c = new PingpongCommand();
        new CommandLine(c).parseArgs(args);
        return Netns.call(ns, () -> {
            ByteArrayOutputStream buf = new ByteArrayOutputStream();
            int rc;
            try (PrintStream out = new PrintStream(buf, true, StandardCharsets.UTF_8)) {
                rc = c.run(out);
            }
            return new Side(rc, buf.toString(StandardCharsets.UTF_8));
        });
    }

    static List<String> args(String ip, String... extra) {
        List<String> a = new ArrayList<>(List.of("--link", "afpacket:eth0", "--ip", ip, "--timeout-s", "20", "-c"));
        a.addAll(List.of(extra));
        return a;
    }

    @ParameterizedTest(name = "{0} {1}")
    @CsvSource({"rc,-n 50", "rc,-n 50 -e -s 10000 -m 2048", "uc,-n 50", "ud,-n 50 -s 1000", "rc,-n 200 -r 4 -s 100"})
    void bothSidesCompleteAndTheServerValidatesEveryByte(String transport, String opts) throws Exception {
        try (Topology t = Topology.create()) {
            String a = t.namespace("a"), b = t.namespace("b");
            t.veth(a, "eth0", b, "eth0", Topology.LinkOptions.mtu(4200));
            t.disableIpv6(a);
            t.disableIpv6(b);
            t.addAddress(a, "eth0", "10.83.0.1/24");
            t.addAddress(b, "eth0", "10.83.0.2/24");
            List<String> extra = new ArrayList<>(List.of("--transport", transport));
            extra.addAll(List.of(opts.split(" ")));
            String[] s = args("10.83.0.12/24", extra.toArray(String[]::new)).toArray(String[]::new);
            CompletableFuture<Side> server = CompletableFuture.supplyAsync(() -> {
                try {
                    return side(b, s);
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            });
            awaitListening(t, b, server);
            extra.add("10.83.0.2");
            Side client = side(a, args("10.83.0.11/24", extra.toArray(String[]::new)).toArray(String[]::new));
            Side srv = server.get(60, TimeUnit.SECONDS);
            String both = "server:\n" + srv.out() + "\nclient:\n" + client.out();
            assertEquals(0, client.exit(), both);
            assertEquals(0, srv.exit(), both);
            int n = Integer.parseInt(opts.replaceAll(".*-n (\\d+).*", "$1"));
            for (Side x : List.of(srv, client)) {
                assertTrue(x.out().matches("(?s).*\\n\\d+ bytes in [0-9.]+ seconds = [0-9.]+ Mbit/sec\\n" + n
                        + " iters in [0-9.]+ seconds = [0-9.]+ usec/iter\\n.*"), both);
                assertTrue(x.out().contains("GID ::ffff:10.83.0.1"), both);
            }
            assertTrue(srv.out().contains("data validated: "), both);
        }
    }

    @org.junit.jupiter.api.Test
    void aServerThatPostsItsReceivesLateRnrNaksTheClientWhichRetriesUntilTheyAreThere() throws Exception {
        try (Topology t = Topology.create()) {
            String a = t.namespace("a"), b = t.namespace("b");
            t.veth(a, "eth0", b, "eth0", Topology.LinkOptions.mtu(1500));
            t.disableIpv6(a);
            t.disableIpv6(b);
            t.addAddress(a, "eth0", "10.83.0.1/24");
            t.addAddress(b, "eth0", "10.83.0.2/24");
            String[] s = args("10.83.0.12/24", "-n", "20", "--recv-delay-ms", "300").toArray(String[]::new);
            CompletableFuture<Side> server = CompletableFuture.supplyAsync(() -> {
                try {
                    return side(b, s);
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            });
            awaitListening(t, b, server);
            Side client = side(a, args("10.83.0.11/24", "-n", "20", "10.83.0.2").toArray(String[]::new));
            Side srv = server.get(60, TimeUnit.SECONDS);
            String both = "server:\n" + srv.out() + "\nclient:\n" + client.out();
            assertEquals(0, client.exit(), both);
            assertEquals(0, srv.exit(), both);
            assertTrue(srv.out().contains("receives posted 300 ms after the exchange"), both);
            assertTrue(srv.out().contains("data validated: "), both);
            long sent = rnr(srv.out(), "sent"), received = rnr(client.out(), "received");
            // min_rnr_timer 12 = 0.64 ms between tries over 300 ms: many NAKs, and the client heard each one
            assertTrue(sent >= 10, both);
            assertEquals(sent, received, both);
            assertEquals(0, rnr(srv.out(), "received"), both);
        }
    }

    /** --srq -q 4 on both sides: ibv_srq_pingpong's exchange and loop, every QP's receives from the one SRQ. */
    @org.junit.jupiter.api.Test
    void srqPingpongRunsFourQpsOnOneSharedReceiveQueue() throws Exception {
        Side[] s = srqPair(new String[] {"-q", "4"}, new String[] {"-q", "4"});
        String both = "server:\n" + s[0].out() + "\nclient:\n" + s[1].out();
        assertEquals(0, s[1].exit(), both);
        assertEquals(0, s[0].exit(), both);
        for (Side x : s) {
            assertEquals(4, x.out().split("local address:", -1).length - 1, both);
            assertEquals(4, x.out().split("remote address:", -1).length - 1, both);
            var m = java.util.regex.Pattern.compile("srq: (\\d+) receives completed on 4 QPs from one SRQ \\(per QP: (\\d+) (\\d+) (\\d+) (\\d+)\\)")
                    .matcher(x.out());
            assertTrue(m.find(), both);
            assertTrue(Long.parseLong(m.group(1)) >= 400, both);
            for (int k = 2; k <= 5; k++) assertTrue(Long.parseLong(m.group(k)) > 0, "every QP received\n" + both);
            assertTrue(x.out().contains("\n400 iters in "), both);
        }
    }

    /** A different -q on the two sides shows in the 256 address messages: both fail naming -q, before any traffic. */
    @org.junit.jupiter.api.Test
    void srqPingpongWithDifferentQpCountsFailsNamingQ() throws Exception {
        java.io.ByteArrayOutputStream errors = new java.io.ByteArrayOutputStream();
        java.io.PrintStream stderr = System.err;
        System.setErr(new java.io.PrintStream(errors, true, StandardCharsets.UTF_8));
        Side[] s;
        try {
            s = srqPair(new String[] {"-q", "4"}, new String[] {"-q", "2"});
        } finally {
            System.setErr(stderr);
        }
        String both = "server:\n" + s[0].out() + "\nclient:\n" + s[1].out() + "\nstderr:\n" + errors;
        assertEquals(1, s[0].exit(), both);
        assertEquals(1, s[1].exit(), both);
        assertTrue(errors.toString().contains("give both the same -q"), both);
    }

    private static Side[] srqPair(String[] serverOpts, String[] clientOpts) throws Exception {
        try (Topology t = Topology.create()) {
            String a = t.namespace("a"), b = t.namespace("b");
            t.veth(a, "eth0", b, "eth0", Topology.LinkOptions.mtu(1500));
            t.disableIpv6(a);
            t.disableIpv6(b);
            t.addAddress(a, "eth0", "10.83.0.1/24");
            t.addAddress(b, "eth0", "10.83.0.2/24");
            List<String> sa = new ArrayList<>(List.of("--link", "afpacket:eth0", "--ip", "10.83.0.12/24", "--timeout-s", "20",
                    "--srq", "-n", "400", "-r", "16", "-s", "100"));
            sa.addAll(List.of(serverOpts));
            CompletableFuture<Side> server = CompletableFuture.supplyAsync(() -> {
                try {
                    return side(b, sa.toArray(String[]::new));
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            });
            awaitListening(t, b, server);
            List<String> ca = new ArrayList<>(List.of("--link", "afpacket:eth0", "--ip", "10.83.0.11/24", "--timeout-s", "20",
                    "--srq", "-n", "400", "-r", "16", "-s", "100"));
            ca.addAll(List.of(clientOpts));
            ca.add("10.83.0.2");
            Side client = side(a, ca.toArray(String[]::new));
            return new Side[] {server.get(60, TimeUnit.SECONDS), client};
        }
    }

    private static long rnr(String out, String which) {
        var m = java.util.regex.Pattern.compile("rnr naks " + which + " (\\d+)").matcher(out);
        assertTrue(m.find(), out);
        return Long.parseLong(m.group(1));
    }
}
