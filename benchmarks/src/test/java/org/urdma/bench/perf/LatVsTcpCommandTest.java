package org.urdma.bench.perf;

import static org.junit.jupiter.api.Assertions.*;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.urdma.nativeio.netns.junit.RootAssumptions;
import picocli.CommandLine;

/** {@code urdma perf lat-vs-tcp}: its own namespaces, three ping-pongs as separate processes, one table (numbers not judged). */
class LatVsTcpCommandTest {
    @Tag("root")
    @Test
    void oneRoundPrintsTheThreeP50sAndTheRatio() {
        RootAssumptions.assumeRoot();
        LatVsTcpCommand c = new LatVsTcpCommand();
        ByteArrayOutputStream buf = new ByteArrayOutputStream();
        c.out = new PrintStream(buf, true, StandardCharsets.UTF_8);
        assertEquals(0, new CommandLine(c).execute("-n", "300", "--rounds", "1", "--timeout", "90"));
        String out = buf.toString(StandardCharsets.UTF_8);
        Matcher row = Pattern.compile("(?m)^1\\s+([0-9.]+)\\s+([0-9.]+)\\s+([0-9.]+)\\s+([0-9.]+)\\s+([0-9.]+)$").matcher(out);
        assertTrue(row.find(), out);
        for (int g = 1; g <= 3; g++) assertTrue(Double.parseDouble(row.group(g)) > 0, out);
        assertEquals(Double.parseDouble(row.group(2)) / Double.parseDouble(row.group(1)), Double.parseDouble(row.group(4)), 0.01, out);
        assertTrue(out.contains("send-lat 8 B p50 / TCP ping-pong half round trip p50 = "), out);
        assertTrue(out.contains("urdma: RC roce2") && out.contains("port MAC own"), out);
        Matcher floor = Pattern.compile("RC floor: raw AF_PACKET ping-pong with 2 frames per hop .* p50 ([0-9.]+) us").matcher(out);
        assertTrue(floor.find(), out);
        assertTrue(Double.parseDouble(floor.group(1)) > 0, out);
    }

    @Test
    void aBadPortMacOrConnectionIsRejectedWithItsName() {
        for (String[] args : new String[][] {{"--port-mac", "shared"}, {"-c", "XRC"}}) {
            LatVsTcpCommand c = new LatVsTcpCommand();
            ByteArrayOutputStream err = new ByteArrayOutputStream();
            CommandLine cl = new CommandLine(c);
            cl.setErr(new java.io.PrintWriter(err, true));
            assertEquals(2, cl.execute(args)); // picocli's code for a bad parameter, before anything is set up
            String msg = err.toString(StandardCharsets.UTF_8);
            assertTrue(msg.contains(args[0]) && msg.contains(args[1]), msg);
        }
    }

    @Test
    void mediansOfRounds() {
        assertEquals(2.0, LatVsTcpCommand.median(new double[] {3, 1, 2}));
        assertEquals(2.5, LatVsTcpCommand.median(new double[] {4, 1, 2, 3}));
    }
}
