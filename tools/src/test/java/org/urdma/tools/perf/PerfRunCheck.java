package org.urdma.tools.perf;

import static org.junit.jupiter.api.Assertions.*;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.params.provider.Arguments;
import org.urdma.transport.pcap.PcapReader;
import org.urdma.transport.wire.AnyFrameDecoder;
import org.urdma.transport.wire.DecodeStatus;
import org.urdma.transport.wire.FrameClass;
import org.urdma.transport.wire.FramingKind;
import org.urdma.transport.wire.Packet;
import picocli.CommandLine;

/**
 * What a finished two-process {@code urdma perf} run must show, whatever link carried it: both processes exit 0, the
 * client prints perftest's row, the side that was written to (or that read) verified its memory, and a capture
 * decodes as valid RoCE in our decoder, in {@code urdma wire decode} and in tshark.
 */
final class PerfRunCheck {
    private PerfRunCheck() {
    }

    /** Message size for a test and service: two MTUs and a bit for RC/UC (segmentation), one frame for UD. */
    static int size(String test, String type) {
        if (test.startsWith("atomic")) return 8;
        return type.equals("UD") ? 1024 : 8300;
    }

    /** Iterations: few, the runs show correctness; a latency iteration is a round trip between two busy processes. */
    static int iters(String test) {
        return test.endsWith("-bw") ? 200 : 100;
    }

    /** The perf arguments both sides get (perftest's model: the same flags on both ends). */
    static List<String> testArgs(String test, String type) {
        List<String> a = new ArrayList<>(List.of(test, "-c", type, "-s", String.valueOf(size(test, type)), "-n",
                String.valueOf(iters(test)), "-t", "64",
                "--cm-timeout", "20"));
        if (test.equals("atomic-lat")) a.addAll(List.of("-A", "CMP_AND_SWAP")); // both atomics covered
        return a;
    }

    /** Every perf test on every service it runs on: RC for all, UC for WRITE and SEND, UD for SEND. */
    static Stream<String[]> testsAndTypes() {
        List<String[]> l = new ArrayList<>();
        for (String t : List.of("write-bw", "read-bw", "send-bw", "atomic-bw", "write-lat", "read-lat", "send-lat", "atomic-lat")) {
            l.add(new String[] {t, "RC"});
            if (t.startsWith("write") || t.startsWith("send")) l.add(new String[] {t, "UC"});
            if (t.startsWith("send")) l.add(new String[] {t, "UD"});
        }
        return l.stream();
    }

    /** {@link #testsAndTypes()} in both RoCE framings. */
    static Stream<Arguments> matrix() {
        return testsAndTypes().flatMap(tt -> Stream.of("roce1", "roce2").map(f -> Arguments.of(tt[0], tt[1], f)));
    }

    /** Both exit 0; the client's row; the memory check of the side the test writes to or reads into. */
    static void assertVerified(String test, String type, String framing, String serverOut, int serverExit, String clientOut,
            int clientExit, String transport) {
        String both = "\n--- server:\n" + serverOut + "\n--- client:\n" + clientOut;
        assertEquals(0, clientExit, "client exit" + both);
        assertEquals(0, serverExit, "server exit" + both);
        int size = size(test, type);
        String row = test.endsWith("-bw") ? "\\s+[0-9.]+\\s+[0-9.]+\\s+[0-9.]+\\n.*" : "(\\s+[0-9.]+){7}\\n.*";
        assertTrue(clientOut.matches("(?s).*\\n " + size + "\\s+" + iters(test) + row), "perftest's row" + both);
        assertTrue(clientOut.contains("Connection type : " + type), both);
        assertTrue(clientOut.contains("Transport type : urdma (" + framing + " on " + transport), both);
        assertTrue(serverOut.contains("Transport type : urdma (" + framing + " on " + transport), both);
        switch (test) {
            case "write-bw", "send-bw" -> assertTrue(serverOut.contains("remote memory verified: " + size + " bytes"), both);
            case "read-bw", "read-lat" -> assertTrue(clientOut.contains("READ data verified: " + size + " bytes"), both);
            case "atomic-bw" -> assertTrue(clientOut.contains("FETCH_AND_ADD results verified"), both);
            case "atomic-lat" -> assertTrue(clientOut.contains("CMP_AND_SWAP results verified"), both);
            case "write-lat", "send-lat" -> { // ping-pong: each side is written to by the other and checks it
                assertTrue(serverOut.contains("remote memory verified: " + size + " bytes"), both);
                assertTrue(clientOut.contains("remote memory verified: " + size + " bytes"), both);
            }
            default -> fail("unknown test " + test);
        }
        if (test.equals("send-bw")) {
            // every message arrives on RC; UC and UD may lose some on a busy machine, but not most of them
            Matcher m = Pattern.compile(size + "-byte messages received: (\\d+)").matcher(serverOut);
            assertTrue(m.find(), both);
            long got = Long.parseLong(m.group(1));
            assertTrue(type.equals("RC") ? got == 200 : got >= 100 && got <= 200, "messages received " + got + both);
        }
    }

    /**
     * The capture holds only valid frames of {@code kind}: our decoder (ICRC and all), {@code urdma wire decode} with 0
     * invalid, and tshark (when installed; required under CI=true) finds the same number of InfiniBand frames and
     * nothing malformed or in error. Returns the RDMA frames seen.
     */
    static int assertCaptureIsValidRoce(Path pcap, FramingKind kind) throws Exception {
        AnyFrameDecoder d = new AnyFrameDecoder();
        Packet p = new Packet();
        int rdma = 0;
        List<String> bad = new ArrayList<>();
        try (PcapReader r = new PcapReader(pcap)) {
            while (r.next()) {
                UnsafeBuffer b = r.buffer();
                int len = r.capturedLength();
                FrameClass c = d.classify(b, 0, len);
                if (c.framing() == null) continue; // ARP
                if (c.framing() != kind) bad.add(rdma + ": framing " + c.framing());
                DecodeStatus s = d.decode(b, 0, len, p);
                if (s != DecodeStatus.OK) bad.add(rdma + ": " + s);
                rdma++;
            }
        }
        assertEquals(List.of(), bad, "frames our decoder rejects in " + pcap);
        assertTrue(rdma >= 100, "RDMA frames captured: " + rdma);

        CommandLine cli = org.urdma.cli.UrdmaCli.commandLine();
        StringWriter out = new StringWriter();
        cli.setOut(new PrintWriter(out, true));
        cli.setErr(new PrintWriter(out, true));
        assertEquals(0, cli.execute("wire", "decode", "-q", pcap.toString()), out.toString());
        Matcher m = Pattern.compile("(\\d+) frames: (\\d+) valid, 0 invalid").matcher(out.toString());
        assertTrue(m.find(), "urdma wire decode: " + out);
        assertTrue(Integer.parseInt(m.group(2)) >= rdma, "urdma wire decode: " + out);

        requireTshark();
        assertEquals(rdma, tsharkCount(pcap, "infiniband"), "frames tshark decodes as RoCE (InfiniBand over Ethernet/UDP)");
        assertEquals(0, tsharkCount(pcap, "_ws.malformed || _ws.expert.severity >= error || ip.checksum.status == 0"),
                "frames tshark finds malformed or in error");
        return rdma;
    }

    /** Skips when tshark is absent, unless CI=true (CI installs it: then it fails). */
    static void requireTshark() {
        boolean present = false;
        for (String dir : System.getenv().getOrDefault("PATH", "/usr/bin").split(":")) {
            if (Files.isExecutable(Path.of(dir, "tshark"))) present = true;
        }
        if (!present && "true".equals(System.getenv("CI"))) throw new AssertionError("tshark is not installed but CI=true");
        Assumptions.assumeTrue(present, "tshark not installed (apt-get install tshark); the tshark part is skipped");
    }

    static int tsharkCount(Path pcap, String filter) throws Exception {
        Process p = new ProcessBuilder("tshark", "-n", "-r", pcap.toString(), "-o", "ip.check_checksum:TRUE", "-Y", filter,
                "-T", "fields", "-e", "frame.number").redirectError(ProcessBuilder.Redirect.DISCARD).start();
        try {
            String s = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
            if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0) throw new AssertionError("tshark failed on " + pcap);
            return s.isEmpty() ? 0 : s.split("\n").length;
        } finally {
            p.destroyForcibly();
        }
    }
}
