package org.urdma.tools.perf;

import static org.junit.jupiter.api.Assertions.*;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.urdma.nativeio.netns.Netns;
import org.urdma.nativeio.netns.Topology;
import org.urdma.nativeio.netns.junit.RootAssumptions;
import org.urdma.transport.pcap.PcapReader;
import org.urdma.transport.wire.AnyFrameDecoder;
import org.urdma.transport.wire.DecodeStatus;
import org.urdma.transport.wire.Packet;
import picocli.CommandLine;

/**
 * {@code urdma perf} as two sides in two namespaces joined by a veth pair (one thread per side, each inside its
 * namespace): the server is the side without a peer address. The full matrix with two real processes is
 * {@link NetPerfTwoProcessVethTest}; this keeps the cases that need this JVM (stderr, -q, pcap of one side).
 */
@Tag("root")
class NetPerfVethTest {
    @BeforeAll
    static void root() {
        RootAssumptions.assumeRoot();
    }

    record Side(int exit, String out) {
    }

    static Side side(String ns, Object command, Function<Object, Integer> run, String... args) throws Exception {
        new CommandLine(command).parseArgs(args);
        return Netns.call(ns, () -> {
            ByteArrayOutputStream buf = new ByteArrayOutputStream();
            int rc;
            try (PrintStream out = new PrintStream(buf, true, StandardCharsets.UTF_8)) {
                rc = run.apply(out);
            }
            return new Side(rc, buf.toString(StandardCharsets.UTF_8));
        });
    }

    /** Runs server and client of one test; returns {server, client}. */
    static Side[] run(String test, String framing, Path pcap, String... extra) throws Exception {
        try (Topology t = Topology.create()) {
            String a = t.namespace("a"), b = t.namespace("b");
            t.veth(a, "eth0", b, "eth0", Topology.LinkOptions.mtu(9000));
            t.disableIpv6(a);
            t.disableIpv6(b);
            t.addAddress(a, "eth0", "10.82.0.1/24");
            t.addAddress(b, "eth0", "10.82.0.2/24");
            CompletableFuture<Side> server = CompletableFuture.supplyAsync(() -> call(b, test, framing, "10.82.0.12/24", null, null, extra));
            Side client = call(a, test, framing, "10.82.0.11/24", "10.82.0.2", pcap, extra);
            return new Side[] {server.get(60, TimeUnit.SECONDS), client};
        }
    }

    static Side call(String ns, String test, String framing, String ip, String peer, Path pcap, String... extra) {
        java.util.List<String> args = new java.util.ArrayList<>(java.util.List.of("--link", "afpacket:eth0", "--framing", framing,
                "--ip", ip));
        if (!java.util.List.of(extra).contains("--cm-timeout")) args.addAll(java.util.List.of("--cm-timeout", "20"));
        args.addAll(java.util.List.of(extra));
        if (pcap != null) args.addAll(java.util.List.of("--pcap", pcap.toString()));
        if (peer != null) args.add(peer);
        String[] a = args.toArray(String[]::new);
        try {
            PerfTest t = java.util.Arrays.stream(PerfTest.values()).filter(x -> x.command.equals(test)).findFirst().orElseThrow();
            PerfTestCommand c = new PerfTestCommand(t) {
            };
            return side(ns, c, out -> PerfRunner.run(t, c.o, c.net, (PrintStream) out), a);
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"roce1", "roce2"})
    void writeBwBetweenTwoNamespacesVerifiesTheServersMemory(String framing, @TempDir Path dir) throws Exception {
        Path pcap = dir.resolve("c.pcap");
        Side[] s = run("write-bw", framing, pcap, "-s", "65536", "-n", "200", "-t", "32");
        assertEquals(0, s[1].exit(), s[1].out());
        assertEquals(0, s[0].exit(), s[0].out());
        assertTrue(s[1].out().matches("(?s).*\\n 65536\\s+200\\s+[0-9.]+\\s+[0-9.]+\\s+[0-9.]+\\n.*"), s[1].out());
        assertTrue(s[0].out().contains("remote memory verified: 65536 bytes"), s[0].out());
        assertTrue(s[1].out().contains("Transport type : urdma (" + framing + " on AF_PACKET eth0"), s[1].out());
        // the capture is valid RoCE with good ICRCs
        AnyFrameDecoder d = new AnyFrameDecoder();
        Packet p = new Packet();
        int ok = 0;
        try (PcapReader r = new PcapReader(pcap)) {
            while (r.next()) {
                UnsafeBuffer b = r.buffer();
                if (d.classify(b, 0, r.capturedLength()).framing() == null) continue;
                assertEquals(DecodeStatus.OK, d.decode(b, 0, r.capturedLength(), p));
                ok++;
            }
        }
        assertTrue(ok >= 200 * 16, "RDMA frames in the capture: " + ok);
    }

    /** --idle poll: both engines sleep in poll(2) on their sockets when idle, and the run still completes and verifies. */
    @Test
    void writeBwWithPollIdleCompletesAndVerifies() throws Exception {
        Side[] s = run("write-bw", "roce2", null, "-s", "65536", "-n", "200", "-t", "32", "--idle", "poll");
        assertEquals(0, s[1].exit(), s[1].out());
        assertEquals(0, s[0].exit(), s[0].out());
        assertTrue(s[0].out().contains("remote memory verified: 65536 bytes"), s[0].out());
        assertTrue(s[1].out().contains("AF_PACKET eth0 (TPACKET_V2 RX)"), s[1].out());
    }

    @Test
    void sendLatBetweenTwoNamespacesPrintsPercentiles() throws Exception {
        Side[] s = run("send-lat", "roce2", null, "-s", "8", "-n", "300");
        assertEquals(0, s[1].exit(), s[1].out());
        assertEquals(0, s[0].exit(), s[0].out());
        assertTrue(s[1].out().matches("(?s).*\\n 8\\s+300\\s+[0-9.]+\\s+[0-9.]+.*"), s[1].out());
        assertTrue(s[1].out().contains("99.9% percentile[usec]"), s[1].out());
    }

    /**
     * perftest's addressing: a message of at most half the page moves on by INC(size, 64) per request and wraps at the
     * page, so the server finds the pattern at every place and nothing between them; atomics hit 64 places.
     */
    @ParameterizedTest
    @org.junit.jupiter.params.provider.CsvSource({
            "write-bw,100,remote memory verified: 100 bytes match the client's pattern in each of 32 written places,server",
            "read-bw,1000,READ data verified: 1000 bytes match the server's pattern,client",
            "send-bw,2000,remote memory verified: 2000 bytes match the client's pattern in each of 300 messages,server",
            "atomic-bw,8,remote memory verified: CMP_AND_SWAP moved each of 64 target addresses as 300 operations do,server",
            "atomic-bw,8,CMP_AND_SWAP results verified: 300 operations,client"})
    void perftestExchangeCyclesThroughThePageLikePerftest(String test, int size, String verified, String checker) throws Exception {
        Side[] s = run(test, "roce2", null, "-s", String.valueOf(size), "-n", "300", "-t", "16", "-m", "1024", "-A", "CMP_AND_SWAP");
        assertEquals(0, s[1].exit(), s[1].out());
        assertEquals(0, s[0].exit(), s[0].out());
        assertTrue(s[1].out().contains("CM              : perftest 6.06 exchange"), s[1].out());
        Side c = checker.equals("server") ? s[0] : s[1];
        assertTrue(c.out().contains(verified), c.out());
    }

    /** urdma's own exchange stays available behind --exchange urdma. */
    @Test
    void urdmaExchangeStillRuns() throws Exception {
        Side[] s = run("write-bw", "roce2", null, "--exchange", "urdma", "-s", "4096", "-n", "200", "-t", "16");
        assertEquals(0, s[1].exit(), s[1].out());
        assertEquals(0, s[0].exit(), s[0].out());
        assertTrue(s[1].out().contains("CM              : urdma exchange"), s[1].out());
        assertTrue(s[0].out().contains("remote memory verified: 4096 bytes"), s[0].out());
    }

    /**
     * --rate_limit on urdma's exchange paces the engine (it was accepted and ignored: write-bw ran at the veth's speed).
     */
    @Test
    void rateLimitOnUrdmasExchangePacesTheEngineAtTheRate() throws Exception {
        Side[] s = run("write-bw", "roce2", null, "--exchange", "urdma", "-s", "65536", "-n", "400", "-t", "64",
                "--report_gbits", "--rate_limit", "0.2", "--rate_units", "g");
        assertEquals(0, s[1].exit(), s[1].out());
        assertEquals(0, s[0].exit(), s[0].out());
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("\\n 65536\\s+400\\s+([0-9.]+)\\s+([0-9.]+)").matcher(s[1].out());
        assertTrue(m.find(), s[1].out());
        double average = Double.parseDouble(m.group(2));
        // unpaced, write-bw over a veth runs at several Gbit/s here
        assertTrue(average <= 0.21 && average >= 0.05, "BW average " + average + " Gbit/s for a 0.2 Gbit/s limit:\n" + s[1].out());
    }

    /** -q 2: one out-of-band exchange per QP over the same connection, each QP its own window and buffers. */
    @Test
    void sendBwWithTwoQpsBetweenTwoNamespaces() throws Exception {
        Side[] s = run("send-bw", "roce2", null, "-q", "2", "-s", "2048", "-n", "200", "-t", "16");
        assertEquals(0, s[1].exit(), s[1].out());
        assertEquals(0, s[0].exit(), s[0].out());
        assertTrue(s[1].out().contains("Number of qps   : 2"), s[1].out());
        // perftest reports -n per QP times the QPs (iters * num_of_qps)
        assertTrue(s[1].out().matches("(?s).*\\n 2048\\s+400\\s+.*"), s[1].out());
        assertTrue(s[0].out().contains("2048-byte messages received: 400"), s[0].out());
    }

    /** RoCEv1 for a READ test, with a capture of the client's side that {@code urdma wire decode} accepts. */
    @Test
    void readBwOverRoce1CapturesFramesThatWireDecodeAccepts(@TempDir Path dir) throws Exception {
        Path pcap = dir.resolve("read.pcap");
        Side[] s = run("read-bw", "roce1", pcap, "-s", "8192", "-n", "100", "-t", "16");
        assertEquals(0, s[1].exit(), s[1].out());
        assertEquals(0, s[0].exit(), s[0].out());
        assertTrue(s[1].out().contains("READ data verified: 8192 bytes"), s[1].out());
        CommandLine cli = org.urdma.cli.UrdmaCli.commandLine();
        java.io.StringWriter out = new java.io.StringWriter();
        cli.setOut(new java.io.PrintWriter(out, true));
        cli.setErr(new java.io.PrintWriter(out, true));
        assertEquals(0, cli.execute("wire", "decode", "-q", pcap.toString()), out.toString());
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("(\\d+) frames: (\\d+) valid, 0 invalid").matcher(out.toString());
        assertTrue(m.find(), out.toString());
        assertTrue(Integer.parseInt(m.group(2)) >= 100 * 3, out.toString()); // requests plus 8 KiB of responses each
    }

    @Test
    void aClientWithNoServerFailsWithAClearMessage() throws Exception {
        try (Topology t = Topology.create()) {
            String a = t.namespace("a"), b = t.namespace("b");
            t.veth(a, "eth0", b, "eth0", Topology.LinkOptions.mtu(1500));
            t.addAddress(a, "eth0", "10.83.0.1/24");
            t.addAddress(b, "eth0", "10.83.0.2/24");
            java.io.PrintStream oldErr = System.err;
            ByteArrayOutputStream err = new ByteArrayOutputStream();
            System.setErr(new PrintStream(err, true, StandardCharsets.UTF_8));
            Side c;
            try {
                c = call(a, "write-bw", "roce2", "10.83.0.11/24", "10.83.0.2", null, "-n", "10", "--cm-timeout", "1");
            } finally {
                System.setErr(oldErr);
            }
            assertEquals(1, c.exit());
            assertTrue(err.toString(StandardCharsets.UTF_8).contains("connect: no urdma/perftest server at"), err.toString(StandardCharsets.UTF_8));
        }
    }
}
