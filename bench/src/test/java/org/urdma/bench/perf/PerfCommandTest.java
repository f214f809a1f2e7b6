package org.urdma.bench.perf;

import static org.junit.jupiter.api.Assertions.*;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;
import org.urdma.cli.UrdmaCli;

class PerfCommandTest {
    private static String run(String... args) {
        PrintStream old = System.out;
        ByteArrayOutputStream buf = new ByteArrayOutputStream();
        System.setOut(new PrintStream(buf, true, StandardCharsets.UTF_8));
        try {
            assertEquals(0, UrdmaCli.commandLine().execute(args));
        } finally {
            System.setOut(old);
        }
        return buf.toString(StandardCharsets.UTF_8);
    }

    @Test
    void writeBwPrintsPerftestColumnsAndTheCopyRatio() {
        String out = run("perf", "write-bw", "-n", "300", "-s", "65536", "--link", "memory");
        assertTrue(out.contains("RDMA_Write BW Test"), out);
        assertTrue(out.contains("#bytes     #iterations    BW peak[MB/sec]    BW average[MB/sec]   MsgRate[Mpps]"), out);
        assertTrue(out.matches("(?s).*\\n 65536\\s+300\\s+[0-9.]+\\s+[0-9.]+\\s+[0-9.]+\\n.*"), out);
        assertTrue(out.contains("ratio urdma/copy = "), out);
    }

    @Test
    void writeBwCompletesWithATxDepthBelowTheCompletionModeration() {
        // Every 100th WRITE is signaled; with -t 16 the window must still get completions to move on.
        String out = assertTimeoutPreemptively(java.time.Duration.ofSeconds(60),
                () -> run("perf", "write-bw", "-n", "500", "-s", "4096", "-t", "16", "--no-copy-baseline"));
        assertTrue(out.matches("(?s).*\\n 4096\\s+500\\s+.*"), out);
    }

    @Test
    void sendLatPrintsPercentiles() {
        String out = run("perf", "send-lat", "-n", "200", "-s", "8", "--link", "memory");
        assertTrue(out.contains("t_typical[usec]"), out);
        assertTrue(out.contains("99.9% percentile[usec]"), out);
        assertTrue(out.matches("(?s).*\\n 8\\s+200\\s+[0-9.]+.*"), out);
    }

    @Test
    void agentDriverAndUnknownLinkAreHandled() {
        String out = run("perf", "write-bw", "-n", "100", "-s", "4096", "--driver", "agent", "--idle", "backoff", "--no-copy-baseline");
        assertTrue(out.matches("(?s).*\\n 4096\\s+100\\s+.*"), out);
        assertNotEquals(0, UrdmaCli.commandLine().execute("perf", "write-bw", "--link", "afpacket"));
    }
}
