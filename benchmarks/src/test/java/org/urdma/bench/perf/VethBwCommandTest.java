package org.urdma.bench.perf;

import static org.junit.jupiter.api.Assertions.*;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.urdma.nativeio.netns.junit.RootAssumptions;
import org.urdma.transport.wire.FramingKind;
import picocli.CommandLine;

/** {@code urdma perf veth-bw}: one short round prints both rates, the ratio and the load (no timing asserted). */
@Tag("root")
class VethBwCommandTest {
    @BeforeAll
    static void root() {
        RootAssumptions.assumeRoot();
    }

    @Test
    void oneRoundPrintsTheBlastTheWriteBwTheirRatioAndTcp() throws Exception {
        VethBwCommand c = new VethBwCommand();
        new CommandLine(c).parseArgs("-D", "1", "--rounds", "1", "-s", "16384", "--tcp");
        ByteArrayOutputStream buf = new ByteArrayOutputStream();
        int rc;
        try (PrintStream out = new PrintStream(buf, true, StandardCharsets.UTF_8)) {
            rc = c.run(out);
        }
        String text = buf.toString(StandardCharsets.UTF_8);
        assertEquals(0, rc, text);
        assertTrue(text.matches("(?s).*\\n1\\s+raw blast\\s+[0-9]+\\s+[0-9.]+.*"), text);
        assertTrue(text.matches("(?s).*\\n1\\s+write-bw\\s+[0-9]+\\s+[0-9.]+\\s+[0-9.]+.*"), text);
        assertTrue(text.contains("ratio write-bw / raw blast (frames/s): median "), text);
        assertTrue(text.matches("(?s).*\\n1\\s+tcp stream\\s+[0-9.]+.*write-bw / TCP = [0-9.]+.*"), text);
        assertTrue(text.contains("4154-byte frames"), text); // a full RoCEv2 RDMA WRITE middle packet at path MTU 4096
        assertTrue(text.contains("TX ring " + org.urdma.transport.link.ethernet.AfPacketLink.TX_SLOTS + " slots (both)"), text);
    }

    @Test
    void theBlastFrameIsAFullWriteMiddlePacket() {
        assertEquals(14 + 20 + 8 + 12 + 4096 + 4, VethBwCommand.fullFrameLength(FramingKind.ROCE2, 4096));
        assertEquals(14 + 40 + 12 + 1024 + 4, VethBwCommand.fullFrameLength(FramingKind.ROCE1, 1024));
    }

    @Test
    void aBadMtuIsRejectedWithItsName() {
        VethBwCommand c = new VethBwCommand();
        CommandLine cl = new CommandLine(c);
        cl.parseArgs("-m", "3000");
        Exception e = assertThrows(CommandLine.ParameterException.class, () -> c.run(new PrintStream(new ByteArrayOutputStream())));
        assertTrue(e.getMessage().contains("--mtu"), e.getMessage());
    }
}
