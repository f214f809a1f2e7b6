package org.urdma.interop;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.urdma.cli.UrdmaCli;
import org.urdma.transport.pcap.PcapReader;

/** Checks every interop test makes of its bridge capture, written once. */
final class CaptureChecks {
    private static final Pattern SUMMARY = Pattern.compile("(\\d+) frames: (\\d+) valid, (\\d+) invalid, (\\d+) other");

    private CaptureChecks() {
    }

    /**
     * Every RoCE frame in the capture, both directions, decodes with urdma's codecs and a good ICRC ({@code urdma wire
     * decode -q} exits 0 with no invalid frame); its summary is kept in {@code summaryFile}. Returns the valid frames.
     */
    static int assertAllDecode(Path pcap, Path summaryFile) throws IOException {
        StringWriter decoded = new StringWriter();
        var cl = UrdmaCli.commandLine();
        cl.setOut(new PrintWriter(decoded, true));
        cl.setErr(new PrintWriter(decoded, true));
        int rc = cl.execute("wire", "decode", "-q", pcap.toString());
        String summary = decoded.toString();
        Files.writeString(summaryFile, summary);
        Matcher m = SUMMARY.matcher(summary);
        assertTrue(m.find(), summary);
        assertEquals(0, Integer.parseInt(m.group(3)), "invalid frames on the bridge\n" + summary);
        assertEquals(0, rc, summary);
        return Integer.parseInt(m.group(2));
    }

    /** Length of the largest frame in the capture. */
    static int largestFrame(Path pcap) throws IOException {
        int largest = 0;
        try (PcapReader r = new PcapReader(pcap)) {
            while (r.next()) largest = Math.max(largest, r.capturedLength());
        }
        return largest;
    }
}
