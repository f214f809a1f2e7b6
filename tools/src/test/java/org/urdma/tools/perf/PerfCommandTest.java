package org.urdma.tools.perf;

import static org.junit.jupiter.api.Assertions.*;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;
import org.urdma.cli.UrdmaCli;

class PerfCommandTest {
    /** Runs {@code urdma ARGS}, which must exit 0, and returns what it printed. */
    static String run(String... args) {
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
        assertTrue(out.contains(JitWarmup.describe() + System.lineSeparator() + " #bytes"), "the header says a warm-up ran: " + out);
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
    void headerNamesTheIcrcAndANativeNettyTransport() {
        String out = run("perf", "write-bw", "-n", "50", "-s", "4096", "--no-copy-baseline");
        assertTrue(out.matches("(?s).*\\n ICRC            : \\S.*Netty transport: (io_uring|epoll)\\n.*"), out);
    }

    @Test
    void sendLatPrintsPercentiles() {
        String out = run("perf", "send-lat", "-n", "200", "-s", "8", "--link", "memory");
        assertTrue(out.contains("t_typical[usec]"), out);
        assertTrue(out.contains("99.9% percentile[usec]"), out);
        assertTrue(out.matches("(?s).*\\n 8\\s+200\\s+[0-9.]+.*"), out);
        assertTrue(out.contains("remote memory verified: 8 bytes"), out);
    }

    @Test
    void agentDriverAndUnknownLinkAreHandled() {
        String out = run("perf", "write-bw", "-n", "100", "-s", "4096", "--driver", "agent", "--idle", "backoff", "--no-copy-baseline");
        assertTrue(out.matches("(?s).*\\n 4096\\s+100\\s+.*"), out);
        assertNotEquals(0, UrdmaCli.commandLine().execute("perf", "write-bw", "--link", "afpacket"));
    }

    private static final String BW_ROW = "\\s+[0-9.]+\\s+[0-9.]+\\s+[0-9.]+\\n.*";
    private static final String LAT_ROW = "(\\s+[0-9.]+){7}\\n.*";

    @ParameterizedTest
    @CsvSource({"read-bw,RC,RDMA_Read BW Test,READ data verified: 4096 bytes",
            "send-bw,RC,Send BW Test,remote memory verified: 4096 bytes",
            "send-bw,UC,Send BW Test,remote memory verified: 4096 bytes",
            "send-bw,UD,Send BW Test,remote memory verified: 4096 bytes",
            "write-bw,UC,RDMA_Write BW Test,remote memory verified: 4096 bytes"})
    void bandwidthTestsPrintPerftestColumnsAndVerifyMemory(String test, String type, String title, String verified) {
        String out = run("perf", test, "-c", type, "-n", "300", "-s", "4096", "-t", "32", "--no-copy-baseline");
        assertTrue(out.contains(title), out);
        assertTrue(out.contains("Connection type : " + type), out);
        assertTrue(out.contains("#bytes     #iterations    BW peak[MB/sec]    BW average[MB/sec]   MsgRate[Mpps]"), out);
        assertTrue(out.matches("(?s).*\\n 4096\\s+300" + BW_ROW), out);
        assertTrue(out.contains(verified), out);
    }

    @ParameterizedTest
    @ValueSource(strings = {"CMP_AND_SWAP", "FETCH_AND_ADD"})
    void atomicTestsCheckTheRemoteTargetOnTheClient(String type) {
        String bw = run("perf", "atomic-bw", "-A", type, "-n", "300", "-t", "16");
        assertTrue(bw.contains("Atomic " + type + " BW Test"), bw);
        assertTrue(bw.matches("(?s).*\\n 8\\s+300" + BW_ROW), bw);
        assertTrue(bw.contains(type + " results verified"), bw);
        String lat = run("perf", "atomic-lat", "-A", type, "-n", "200");
        assertTrue(lat.contains("Atomic " + type + " Latency Test"), lat);
        assertTrue(lat.matches("(?s).*\\n 8\\s+200" + LAT_ROW), lat);
        assertTrue(lat.contains(type + " results verified"), lat);
    }

    @ParameterizedTest
    @CsvSource({"write-lat,RC,RDMA_Write Latency Test,remote memory verified: 63 bytes",
            "write-lat,UC,RDMA_Write Latency Test,remote memory verified: 63 bytes",
            "read-lat,RC,RDMA_Read Latency Test,READ data verified: 64 bytes",
            "send-lat,UC,Send Latency Test,remote memory verified: 64 bytes",
            "send-lat,UD,Send Latency Test,remote memory verified: 64 bytes"})
    void latencyTestsPrintPercentilesAndVerifyMemory(String test, String type, String title, String verified) {
        String out = run("perf", test, "-c", type, "-n", "200", "-s", "64");
        assertTrue(out.contains(title), out);
        assertTrue(out.contains("t_typical[usec]"), out);
        assertTrue(out.matches("(?s).*\\n 64\\s+200" + LAT_ROW), out);
        assertTrue(out.contains(verified), out);
    }

    @ParameterizedTest
    @CsvSource({"write-bw,remote memory verified: 4096 bytes", "send-bw,4096-byte messages received: 600",
            "atomic-bw,CMP_AND_SWAP results verified"})
    void severalQpsEachRunTheirOwnWindow(String test, String verified) {
        String out = run("perf", test, "-q", "3", "-n", "200", "-s", "4096", "-t", "16", "-A", "CMP_AND_SWAP", "--no-copy-baseline");
        assertTrue(out.contains("Number of qps   : 3"), out);
        assertTrue(out.matches("(?s).*\\n (4096|8)\\s+200" + BW_ROW), out);
        assertTrue(out.contains(verified), out);
        assertFalse(out.contains("the server received"), out);
    }

    /** With agent drivers the server side runs on its own thread and the two meet at a rendezvous. */
    @ParameterizedTest
    @CsvSource({"send-bw,4096-byte messages received: 50", "write-lat,remote memory verified: 4095 bytes"})
    void serverOnItsOwnThreadWithAgentDrivers(String test, String verified) {
        String out = run("perf", test, "--driver", "agent", "-n", "50", "-s", "4096", "-t", "8");
        assertTrue(out.matches("(?s).*\\n 4096\\s+50\\s+.*"), out);
        assertTrue(out.contains(verified), out);
    }

    @Test
    void allSizesRunFromTwoBytesAndUdStopsAtTheMtu() {
        String out = run("perf", "send-bw", "-a", "-c", "UD", "-m", "1024", "-n", "50");
        for (int size = 2; size <= 1024; size *= 2) assertTrue(out.matches("(?s).*\\n " + size + "\\s+50" + BW_ROW), out);
        assertFalse(out.matches("(?s).*\\n 2048\\s+.*"), out);
    }

    @Test
    void durationModeRunsForTheGivenTimeAndReportsGbits() {
        long t0 = System.nanoTime();
        String out = run("perf", "write-bw", "-D", "1", "-s", "4096", "--report_gbits", "--no-copy-baseline");
        assertTrue(System.nanoTime() - t0 >= 1_000_000_000L);
        assertTrue(out.contains("BW average[Gb/sec]"), out);
        assertTrue(out.matches("(?s).*\\n 4096\\s+[0-9]+" + BW_ROW), out);
    }

    @Test
    void anErrorCompletionEndsTheRunWithAClearMessage() {
        PrintStream oldErr = System.err;
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        System.setErr(new PrintStream(err, true, StandardCharsets.UTF_8));
        int rc;
        try {
            // every data frame lost: RC retries twice (4 ms timeout), then RETRY_EXC_ERR and the rest flushed
            rc = UrdmaCli.commandLine().execute("perf", "read-bw", "--loss", "1", "-n", "20", "-s", "1024", "-t", "4",
                    "--retry", "2", "--timeout", "10");
        } finally {
            System.setErr(oldErr);
        }
        String e = err.toString(StandardCharsets.UTF_8);
        assertEquals(1, rc, e);
        assertTrue(e.contains("urdma perf read-bw: completion with error RETRY_EXC_ERR"), e);
        assertTrue(e.contains("flushed (WR_FLUSH_ERR)"), e);
    }

    @Test
    void wanModeIsAgreedPrintedAndRepairsLossSelectively() {
        String out = run("perf", "write-bw", "-n", "400", "-s", "65536", "--loss", "0.02", "--wan", "--no-copy-baseline");
        assertTrue(out.contains(" WAN mode        : wan[ts reth sack fec=auto cc=rrcc]"), out);
        assertTrue(out.contains("Reliability: sack+fec auto, rrcc"), out);
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("packets sent (\\d+), retransmitted (\\d+), retry rounds (\\d+)").matcher(out);
        assertTrue(m.find(), out);
        long sent = Long.parseLong(m.group(1)), resent = Long.parseLong(m.group(2));
        // 2 % of the data frames lost: SACK resends about those, not the window behind each (go-back-N)
        assertTrue(resent > 0 && resent < sent / 20, out);
    }

    @Test
    void wanOptionsAreRefusedWhereTheyCannotBeAgreed() {
        PrintStream oldErr = System.err;
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        System.setErr(new PrintStream(err, true, StandardCharsets.UTF_8));
        try {
            assertEquals(1, UrdmaCli.commandLine().execute("perf", "write-bw", "--link", "tap:urdmawan0", "--reliability", "sack"));
            assertEquals(1, UrdmaCli.commandLine().execute("perf", "send-bw", "-c", "UD", "--wan"));
            assertEquals(1, UrdmaCli.commandLine().execute("perf", "write-bw", "--fec", "8"));
            assertEquals(1, UrdmaCli.commandLine().execute("perf", "write-bw", "--cc", "rrcc,ref=fast"));
        } finally {
            System.setErr(oldErr);
        }
        String e = err.toString(StandardCharsets.UTF_8);
        assertTrue(e.contains("WAN features are agreed in urdma's exchange; perftest's has no field for them"), e);
        assertTrue(e.contains("WAN mode is RC only, was -c UD"), e);
        assertTrue(e.contains("--fec: M,R or auto, was '8'"), e);
        assertTrue(e.contains("--cc: ref= needs a positive rate"), e);
    }

    @Test
    void testsRefuseServicesAndFlagsTheyCannotRun() {
        PrintStream oldErr = System.err;
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        System.setErr(new PrintStream(err, true, StandardCharsets.UTF_8));
        try {
            assertEquals(1, UrdmaCli.commandLine().execute("perf", "read-bw", "-c", "UC", "-n", "10"));
            assertEquals(1, UrdmaCli.commandLine().execute("perf", "send-bw", "-c", "UD", "-s", "8192", "-m", "4096"));
            assertEquals(1, UrdmaCli.commandLine().execute("perf", "atomic-lat", "-A", "SWAP"));
            assertEquals(1, UrdmaCli.commandLine().execute("perf", "send-lat", "-D", "1"));
            assertEquals(1, UrdmaCli.commandLine().execute("perf", "write-lat", "-q", "2"));
        } finally {
            System.setErr(oldErr);
        }
        String e = err.toString(StandardCharsets.UTF_8);
        assertTrue(e.contains("read-bw runs on [RC], not UC"), e);
        assertTrue(e.contains("UD messages fit one MTU (4096 bytes), was 8192"), e);
        assertTrue(e.contains("-A: CMP_AND_SWAP or FETCH_AND_ADD, was 'SWAP'"), e);
        assertTrue(e.contains("-D: duration mode is for bandwidth tests"), e);
        assertTrue(e.contains("-q: latency tests use one QP"), e);
    }
}
