package org.urdma.transport.link.ethernet;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/** Cross-checks a capture with tshark when it is installed (skipped silently otherwise: our own decoder already ran). */
final class TsharkCheck {
    private TsharkCheck() {
    }

    static boolean available() {
        for (String d : System.getenv().getOrDefault("PATH", "/usr/bin").split(":")) {
            if (Files.isExecutable(Path.of(d, "tshark"))) return true;
        }
        return false;
    }

    /** tshark finds {@code expected} InfiniBand (RoCE) frames and no malformed or bad-checksum ones. */
    static void assertDecodesAsRoce(Path pcap, int expected) throws Exception {
        if (!available()) return;
        assertEquals(expected, count(pcap, "infiniband"), "tshark RoCE frames");
        assertEquals(0, count(pcap, "_ws.malformed || _ws.expert.severity >= error || ip.checksum.status == 0"), "tshark malformed frames");
    }

    /** tshark sees one RC SEND_ONLY_WITH_INVALIDATE (0x17) whose IETH is the rkey the test's window had, and no malformed frame. */
    static void assertSendWithInvalidate(Path pcap, int rkey) throws Exception {
        if (!available()) return;
        String filter = "infiniband.bth.opcode == 23";
        assertEquals(1, count(pcap, filter), "tshark's SEND_ONLY_WITH_INVALIDATE frames");
        for (String v : fields(pcap, filter, "infiniband.ieth").split(",")) { // the dissector may list the field twice
            assertEquals(String.format("%08x", rkey), v.replace(":", ""), "tshark's IETH R_Key");
        }
        assertEquals(0, count(pcap, "_ws.malformed || _ws.expert.severity >= error || ip.checksum.status == 0"), "tshark malformed frames");
    }

    private static int count(Path pcap, String filter) throws Exception {
        String s = fields(pcap, filter, "frame.number");
        return s.isEmpty() ? 0 : s.split("\n").length;
    }

    private static String fields(Path pcap, String filter, String field) throws Exception {
        Process p = new ProcessBuilder("tshark", "-n", "-r", pcap.toString(), "-o", "ip.check_checksum:TRUE", "-Y", filter, "-T", "fields", "-e", field)
                .redirectErrorStream(false).start();
        byte[] out = p.getInputStream().readAllBytes();
        if (!p.waitFor(60, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new AssertionError("tshark did not finish");
        }
        return new String(out, StandardCharsets.UTF_8).strip();
    }
}
