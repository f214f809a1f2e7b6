package org.urdma.cli.wire;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;

import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.urdma.cli.UrdmaCli;
import org.urdma.transport.pcap.PcapReader;
import org.urdma.transport.pcap.PcapWriter;
import picocli.CommandLine;

/** {@code urdma wire sample} and {@code urdma wire decode} as a user runs them. */
class WireCommandsTest {
    @TempDir
    Path dir;

    private final StringWriter out = new StringWriter();
    private final StringWriter err = new StringWriter();

    private int run(final String... args) {
        final CommandLine cl = UrdmaCli.commandLine();
        cl.setOut(new PrintWriter(out, true));
        cl.setErr(new PrintWriter(err, true));
        return cl.execute(args);
    }

    @ParameterizedTest
    @ValueSource(strings = {"roce1", "roce2", "paxi-standard", "paxi-afh1", "paxi-afh2"})
    void sampleThenDecodeGivesOneValidLinePerFrame(final String framing) throws Exception {
        final Path pcap = dir.resolve(framing + ".pcap");
        assertEquals(0, run("wire", "sample", "--framing", framing, "--vlan", "3", "--out", pcap.toString()), err.toString());
        final int frames = count(pcap);
        assertTrue(frames > 40, "frames: " + frames);
        assertEquals(0, run("wire", "decode", pcap.toString()), out.toString());
        final String text = out.toString();
        assertTrue(text.contains(frames + " frames: " + frames + " valid, 0 invalid"), text);
        assertTrue(text.contains("RC_RDMA_WRITE_ONLY"), text);
        assertTrue(text.contains("pfc cev=0x"), text);
        assertEquals(frames, text.lines().filter(l -> l.matches("^ *\\d+ (?!frames:).*")).count(), text);
    }

    @Test
    void liteSampleDecodesWithTheLiteHint() throws Exception {
        final Path pcap = dir.resolve("lite.pcap");
        assertEquals(0, run("wire", "sample", "--framing", "paxi-lite", "--out", pcap.toString()), err.toString());
        assertEquals(0, run("wire", "decode", "--lite", pcap.toString()), out.toString());
        assertTrue(out.toString().contains("paxi-lite"), out.toString());
    }

    @Test
    void aCorruptedFrameIsReportedAsBadIcrcAndExitsOne() throws Exception {
        final Path good = dir.resolve("good.pcap");
        assertEquals(0, run("wire", "sample", "--framing", "roce2", "--out", good.toString()));
        final Path bad = dir.resolve("bad.pcap");
        try (PcapReader r = new PcapReader(good); PcapWriter w = new PcapWriter(bad)) {
            while (r.next()) {
                final byte[] frame = r.bytes().clone();
                if (r.frameNumber() == 5) {
                    frame[frame.length - 10] ^= 0x01; // a payload bit: only the ICRC can tell
                }
                w.write(r.timestampNanos(), new UnsafeBuffer(frame), 0, r.capturedLength());
            }
        }
        out.getBuffer().setLength(0);
        assertEquals(1, run("wire", "decode", "-q", bad.toString()));
        final String text = out.toString();
        assertTrue(text.matches("(?s)\\s*5 roce2\\s+icrc=bad.*"), text);
        assertTrue(text.contains("1 invalid"), text);
    }

    @Test
    void detailShowsTheIntStackAndTheWanHeadersOfUrdmaSamples() throws Exception {
        final Path pcap = dir.resolve("urdma.pcap");
        assertEquals(0, run("wire", "sample", "--framing", "roce2", "--urdma", "--out", pcap.toString()), err.toString());
        assertEquals(0, run("wire", "decode", "--detail", pcap.toString()), out.toString());
        final String text = out.toString();
        assertTrue(text.matches("(?s).*int stamped hops=\\d \\[rate=\\d+G qlen=\\d+ tx=\\d+ t=\\d+].*"), text);
        assertTrue(text.contains("int echo hops="), text);
        assertTrue(text.contains("ueth flags=0x") && text.contains("sack cumulative="), text);
        out.getBuffer().setLength(0);
        assertEquals(0, run("wire", "decode", pcap.toString()), out.toString());
        assertTrue(!out.toString().contains("int stamped"), "no detail without --detail");
    }

    @Test
    void badArgumentsNameTheOption() {
        assertEquals(2, run("wire", "sample", "--framing", "roce3", "--out", dir.resolve("x.pcap").toString()));
        assertTrue(err.toString().contains("--framing") && err.toString().contains("roce2"), err.toString());
        assertEquals(2, run("wire", "sample", "--framing", "roce2", "--vlan", "9", "--out", dir.resolve("x.pcap").toString()));
        assertTrue(err.toString().contains("--vlan"), err.toString());
        assertEquals(2, run("wire", "decode", dir.resolve("missing.pcap").toString()));
        assertTrue(err.toString().contains("missing.pcap"), err.toString());
    }

    private static int count(final Path pcap) throws Exception {
        assertTrue(Files.size(pcap) > 24);
        int n = 0;
        try (PcapReader r = new PcapReader(pcap)) {
            while (r.next()) {
                n++;
            }
        }
        return n;
    }
}
