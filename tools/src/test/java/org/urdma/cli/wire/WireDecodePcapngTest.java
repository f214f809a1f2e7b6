package org.urdma.cli.wire;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.urdma.cli.UrdmaCli;
import org.urdma.nativeio.AfPacketSocket;
import org.urdma.nativeio.netns.Privileges;
import org.urdma.nativeio.netns.Topology;
import org.urdma.transport.pcap.PcapReader;
import picocli.CommandLine;

/** {@code urdma wire decode} on pcapng, the format Wireshark and dumpcap write by default. */
class WireDecodePcapngTest {
    @TempDir
    Path dir;

    private final StringWriter out = new StringWriter(), err = new StringWriter();

    private int run(String... args) {
        CommandLine cl = UrdmaCli.commandLine();
        cl.setOut(new PrintWriter(out, true));
        cl.setErr(new PrintWriter(err, true));
        return cl.execute(args);
    }

    private List<byte[]> sample(Path pcap) throws Exception {
        assertEquals(0, run("wire", "sample", "--framing", "roce2", "--out", pcap.toString()), err.toString());
        List<byte[]> frames = new ArrayList<>();
        try (PcapReader r = new PcapReader(pcap)) {
            while (r.next()) frames.add(r.bytes());
        }
        return frames;
    }

    private static int magic(Path file) throws Exception {
        return ByteBuffer.wrap(Files.readAllBytes(file), 0, 4).order(ByteOrder.LITTLE_ENDIAN).getInt();
    }

    /** Frames sent on a namespace's loopback, captured by dumpcap with no format option: pcapng. */
    @Tag("root")
    @Test
    void aDumpcapCaptureInItsDefaultFormatDecodes() throws Exception {
        String skip = Privileges.skipReasonUnlessRoot();
        Assumptions.assumeTrue(skip == null, skip);
        Tshark.requireInstalled();
        List<byte[]> frames = sample(dir.resolve("sample.pcap"));
        out.getBuffer().setLength(0);
        Path capture = dir.resolve("dumpcap.pcapng"), log = dir.resolve("dumpcap.log");
        try (Topology t = Topology.create()) {
            String ns = t.namespace("cap");
            t.setMtu(ns, "lo", 9000); // AF_PACKET rings take MTUs up to 65535; lo has 65536
            t.up(ns, "lo");
            Process dumpcap = new ProcessBuilder("ip", "netns", "exec", ns, "dumpcap", "-i", "lo", "-w", capture.toString())
                    .redirectErrorStream(true).redirectOutput(log.toFile()).start();
            try {
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
                while (!Files.readString(log).contains("Capturing on")) {
                    assertTrue(dumpcap.isAlive() && System.nanoTime() < deadline, "dumpcap did not start: " + Files.readString(log));
                    Thread.sleep(50);
                }
                t.run(ns, () -> {
                    try (AfPacketSocket s = AfPacketSocket.open("lo"); Arena a = Arena.ofConfined()) {
                        for (byte[] f : frames) {
                            MemorySegment seg = a.allocate(f.length);
                            MemorySegment.copy(MemorySegment.ofArray(f), 0, seg, 0, f.length);
                            s.send(seg, f.length);
                        }
                    }
                });
                Thread.sleep(500);
            } finally {
                dumpcap.destroy(); // SIGTERM: dumpcap finishes the file
                assertTrue(dumpcap.waitFor(20, TimeUnit.SECONDS));
            }
        }
        assertEquals(0x0A0D0D0A, magic(capture), "dumpcap's default format is pcapng");
        assertEquals(0, run("wire", "decode", "-q", capture.toString()), out + "\n" + err);
        // loopback shows each frame once or twice (sent, then received): every one decodes
        var m = java.util.regex.Pattern.compile("(\\d+) frames: (\\d+) valid, 0 invalid, (\\d+) other").matcher(out.toString());
        assertTrue(m.find(), out.toString());
        assertTrue(Long.parseLong(m.group(2)) >= frames.size() - Long.parseLong(m.group(3)) && Long.parseLong(m.group(2)) > 40,
                out.toString());
    }

    /** Our sample converted by editcap to pcapng decodes to the same frames (no root needed). */
    @Test
    void anEditcapPcapngDecodesLikeThePcapItCameFrom() throws Exception {
        Tshark.requireInstalled();
        Path pcap = dir.resolve("sample.pcap"), ng = dir.resolve("sample.pcapng");
        List<byte[]> frames = sample(pcap);
        out.getBuffer().setLength(0);
        Process p = new ProcessBuilder("editcap", "-F", "pcapng", pcap.toString(), ng.toString()).redirectErrorStream(true).start();
        String log = new String(p.getInputStream().readAllBytes());
        assertTrue(p.waitFor(60, TimeUnit.SECONDS));
        assertEquals(0, p.exitValue(), log);
        assertEquals(0x0A0D0D0A, magic(ng));
        assertEquals(0, run("wire", "decode", pcap.toString()), err.toString());
        String fromPcap = out.toString();
        out.getBuffer().setLength(0);
        assertEquals(0, run("wire", "decode", ng.toString()), err.toString());
        assertEquals(fromPcap, out.toString());
        assertTrue(fromPcap.contains(frames.size() + " frames: "), fromPcap);
    }
}
