package org.urdma.tools.perf;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.urdma.cli.CliRun;
import org.urdma.transport.pcap.PcapReader;
import org.urdma.verbs.Gid;

/**
 * perftest's multicast send_bw ({@code -g}, {@code -M}) over the memory link (RoCEv2, which is IPv4 here, with an
 * IPv4-mapped group; RoCEv1 with perftest's default): the server's UD QP is attached to the group, the client sends to the group's MAC and QPN 0xFFFFFF, and every message arrives; perftest's -M format and the
 * modes it refuses with -g.
 */
class PerfMulticastTest {
    @TempDir
    Path dir;

    @ParameterizedTest(name = "{0} {1}")
    @CsvSource({
        "roce2, 0:0:0:0:0:0:0:0:0:0:255:255:239:1:2:3, 01005e010203, 42",
        "roce1, '', 333300000000, 54"})
    void aSendBwWithGGoesToTheGroupAndTheAttachedServerGetsEveryMessage(String framing, String mgid, String mac, int bth) throws Exception {
        Path pcap = dir.resolve("mcast.pcap");
        java.util.List<String> args = new java.util.ArrayList<>(java.util.List.of("perf", "send-bw", "-g", "-n", "300", "-s", "1024",
                "-m", "1024", "--framing", framing, "--pcap", pcap.toString()));
        if (!mgid.isEmpty()) args.addAll(java.util.List.of("-M", mgid));
        CliRun r = CliRun.run(args.toArray(String[]::new));
        assertEquals(0, r.exit(), r.out() + r.err());
        assertTrue(r.out().contains("Send BW Multicast Test"), r.out());
        assertTrue(r.out().contains("Connection type : UD"), "-g runs on UD, as perftest's\n" + r.out());
        assertTrue(r.out().matches("(?s).*\\n 1024\\s+300\\s+[0-9.]+\\s+[0-9.]+\\s+[0-9.]+\\n.*"), r.out());
        assertTrue(r.out().contains("1024-byte messages received: 300"), r.out());
        long toGroup = 0;
        byte[] groupMac = java.util.HexFormat.of().parseHex(mac);
        try (PcapReader rd = new PcapReader(pcap)) {
            while (rd.next()) {
                byte[] f = rd.bytes();
                if (!java.util.Arrays.equals(f, 0, 6, groupMac, 0, 6)) continue;
                toGroup++;
                int destQp = (f[bth + 5] & 0xFF) << 16 | (f[bth + 6] & 0xFF) << 8 | (f[bth + 7] & 0xFF);
                assertEquals(PerfMulticast.QPN, destQp, "a send to the group names QPN 0xFFFFFF");
            }
        }
        assertTrue(toGroup >= 300, "the client's sends went to the group's MAC: " + toGroup);
    }

    @Test
    void mTakesPerftestsSixteenBytesAndWithoutItTheGroupIsPerftestsDefault() {
        Gid v4 = Gid.fromIpv4(new byte[] {(byte) 239, 1, 2, 3});
        assertArrayEquals(v4.toBytes(), PerfMulticast.parse("0:0:0:0:0:0:0:0:0:0:255:255:239:1:2:3"));
        assertArrayEquals(v4.toBytes(), PerfMulticast.parse("0:0:0:0:0:0:0:0:0:0:0xff:0xFF:0357:1:2:3"), "strtoll's bases");
        PerfOptions o = new PerfOptions();
        o.mcg = true;
        assertEquals(Gid.of(PerfMulticast.DEFAULT_MGID), PerfMulticast.group(o));
        assertEquals("ff01:0:2:c985:0:0:0:0", java.net.InetAddress.ofLiteral(PerfMulticast.group(o).toString()).getHostAddress());
        o.mcg = false;
        assertEquals(null, PerfMulticast.group(o));
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
        "send-bw -g -M 1:2:3 | -M: 16 bytes separated by ':'",
        "send-bw -g -M 0:0:0:0:0:0:0:0:0:0:255:255:10:0:0:1 | is no multicast GID",
        "send-bw -g -M 0:0:0:0:0:0:0:0:0:0:255:255:239:1:2:256 | -M: byte 16 must be 0..255",
        "send-bw -g -M 0:0:0:0:0:0:0:0:0:0:255:255:239:x:2:3 | -M: byte 14 'x' is no number",
        "send-bw -M 0:0:0:0:0:0:0:0:0:0:255:255:239:1:2:3 | -M: chooses the group of a multicast run; add -g",
        "write-bw -g | -g: multicast is for send-bw, not write-bw",
        "send-bw -g -q 2 | -g: one QP is attached to the group",
        "send-bw -g -D 2 | -g: a multicast run counts -n iterations",
        "send-bw -g --framing roce2 | -M: over RoCEv2 (IPv4) the group must be IPv4-mapped, was ff01:0000:0002:c985"})
    void aGroupOrAModeAMulticastRunCannotTakeIsRefusedNamingTheFlag(String command, String message) {
        java.util.List<String> args = new java.util.ArrayList<>(java.util.List.of("perf"));
        args.addAll(java.util.List.of(command.split(" ")));
        args.addAll(java.util.List.of("-n", "100"));
        CliRun r = CliRun.run(args.toArray(String[]::new));
        assertEquals(1, r.exit(), r.out() + r.err());
        assertTrue(r.err().contains(message), r.err());
        assertEquals(1, r.err().strip().lines().count(), "one line\n" + r.err());
    }
}
