package org.urdma.tools.perf;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.urdma.tools.perf.NetPerfVethTest.Side;
import org.urdma.nativeio.netns.junit.RootAssumptions;

/**
 * -a and -D over perftest's exchange, urdma on both sides of a veth pair (PerftestModesInteropTest runs them against
 * the stock tools): every size of the sweep, perftest's buffer sizing and per-size barriers, and a timed send_bw
 * whose receiver reposts every receive.
 */
@Tag("root")
class PerftestSweepAndDurationVethTest {
    private static final int[] SWEEP = {2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384, 32768, 65536,
        131072, 262144, 524288, 1048576, 2097152, 4194304, 8388608};

    @BeforeAll
    static void root() {
        RootAssumptions.assumeRoot();
    }

    /** The client prints one row per size, 2 B to 8 MiB, each of -n iterations; the server checks its memory after the last. */
    @ParameterizedTest
    @ValueSource(strings = {"write-bw", "read-bw", "send-bw"})
    void aSweepRunsEverySizeUpToEightMebibytes(String test) throws Exception {
        Side[] s = NetPerfVethTest.run(test, "roce2", null, "-a", "-n", "5", "-t", "4", "--cm-timeout", "60");
        assertEquals(0, s[1].exit(), s[1].out());
        assertEquals(0, s[0].exit(), s[0].out());
        for (int size : SWEEP) {
            assertTrue(Pattern.compile("(?m)^ " + size + "\\s+5\\s+[0-9.]+\\s+[0-9.]+").matcher(s[1].out()).find(),
                    size + "-byte row\n" + s[1].out());
        }
        switch (test) {
            case "write-bw" -> assertTrue(s[0].out().contains("the last 8388608-byte WRITE of the sweep matches the client's pattern"), s[0].out());
            case "read-bw" -> assertTrue(s[1].out().contains("READ data verified: 8388608 bytes match the server's pattern"), s[1].out());
            default -> {
                // the receiver's own row and check per size: -n messages each, nothing left over between sizes
                for (int size : SWEEP) {
                    assertTrue(s[0].out().contains(size + "-byte messages received: 5\n"), size + "\n" + s[0].out());
                }
            }
        }
    }

    /** write_lat and send_lat -a: a row per size on both sides (ping-pongs), 2 B to 8 MiB. */
    @ParameterizedTest
    @ValueSource(strings = {"write-lat", "send-lat"})
    void aLatencySweepRunsEverySize(String test) throws Exception {
        Side[] s = NetPerfVethTest.run(test, "roce2", null, "-a", "-n", "5", "--cm-timeout", "60");
        assertEquals(0, s[1].exit(), s[1].out());
        assertEquals(0, s[0].exit(), s[0].out());
        for (int size : SWEEP) {
            for (Side side : s) {
                assertTrue(Pattern.compile("(?m)^ " + size + "\\s+5\\s+[0-9.]+\\s+[0-9.]+").matcher(side.out()).find(),
                        size + "-byte row\n" + side.out());
            }
        }
        assertTrue(s[0].out().contains(test.equals("write-lat") ? "remote memory verified: 8388608 bytes (the sweep's last message"
                : "remote memory verified: 8388608 bytes equal urdma's pattern"), s[0].out());
    }

    /**
     * send_bw -D 2: the client sends for two seconds and the server reposts every receive it consumes, so no RNR NAK
     * is ever sent; both report the messages of the sampled second (perftest: margin = duration / 4 = 0 s here).
     */
    @Test
    void aTimedSendRunNeverRunsOutOfReceives() throws Exception {
        Side[] s = NetPerfVethTest.run("send-bw", "roce2", null, "-D", "2", "-s", "4096", "-t", "32");
        assertEquals(0, s[1].exit(), s[1].out());
        assertEquals(0, s[0].exit(), s[0].out());
        long client = iterations(s[1].out(), 4096), server = iterations(s[0].out(), 4096);
        assertTrue(client > 512, "more messages than the receives posted at the start: " + client + "\n" + s[1].out());
        assertTrue(server > 512, "server sampled " + server + "\n" + s[0].out());
        assertTrue(s[0].out().contains("RNR NAKs sent 0"), s[0].out());
        assertTrue(s[1].out().contains("RNR NAKs received 0"), s[1].out());
    }

    /** write_bw -D 2: the client's sampled iterations are what the server prints from its report. */
    @Test
    void aTimedWriteRunReportsTheSampledIterationsToTheServer() throws Exception {
        Side[] s = NetPerfVethTest.run("write-bw", "roce2", null, "-D", "2", "-s", "65536", "-t", "32");
        assertEquals(0, s[1].exit(), s[1].out());
        assertEquals(0, s[0].exit(), s[0].out());
        long client = iterations(s[1].out(), 65536);
        assertTrue(client > 0, s[1].out());
        assertEquals(client, iterations(s[0].out(), 65536), s[0].out());
        assertTrue(s[0].out().contains("remote memory verified: 65536 bytes match the client's pattern"), s[0].out());
    }

    static long iterations(String out, int size) {
        Matcher m = Pattern.compile("(?m)^ " + size + "\\s+(\\d+)\\s+[0-9.]+\\s+[0-9.]+").matcher(out);
        assertTrue(m.find(), "a " + size + "-byte row\n" + out);
        return Long.parseLong(m.group(1));
    }
}
