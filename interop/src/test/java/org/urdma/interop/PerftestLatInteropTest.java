package org.urdma.interop;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.urdma.interop.UrdmaInNamespace.Side;

/**
 * {@code urdma perf write-lat|send-lat|read-lat} against the unmodified perftest 6.06 ib_write_lat, ib_send_lat and
 * ib_read_lat on the kernel's rxe, both roles, RC, with -x 1 (RoCEv2): urdma has its own TAP on the guest's bridge
 * (MAC 02:75:72:64:6d:50, 10.77.0.50; its out-of-band TCP runs on the namespace's 10.77.0.1). Every case: both exit 0,
 * the stock tool prints its result row for the size and -n, urdma's side prints its memory check (a broken one fails
 * its run), and a capture of the bridge decodes with every ICRC good and carries full-MTU frames. The 2-byte
 * ib_write_lat runs 300 iterations, past the wrap of the byte it polls (1..255, 0, 1, ...). The run's shared guest (SharedGuest) serves the class: eth0 at 1500
 * (active_mtu 1024, 4 KiB messages), then at 4200 (active_mtu 4096, 16 KiB messages). Last, RNR with rxe as the
 * receiver: a stock ib_send_bw server with one receive posted at a time (-r 1) against urdma's send-bw client.
 * Transcripts, pcaps and results.md land in interop/target/interop/perftest-lat/.
 */
@Tag("root")
@Tag("interop")
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class PerftestLatInteropTest extends GuestToolTest {
    private static final String URDMA_IP = StockToolRun.URDMA_IP;
    private static final String GUEST_IP = StockToolRun.GUEST_IP;
    private static final Duration STEP = StockToolRun.STEP;
    private static final String STOCK_TOOLS = "ib_write_lat ib_send_lat ib_read_lat ib_send_bw";

    private boolean guestAt4096;
    private StockToolRun.Table results;

    PerftestLatInteropTest() {
        // the run's one guest, eth0 at 1500 (SharedGuest puts it back there after this class)
        super("perftest-lat", STOCK_TOOLS);
    }

    @BeforeAll
    void prepare() throws Exception {
        results = new StockToolRun.Table(out.resolve("results.md"),
                "urdma perf against stock perftest 6.06 latency tools on rxe (PerftestLatInteropTest)");
    }

    @AfterAll
    void teardown() throws Exception {
        try {
            if (results != null) results.write();
        } finally {
            guest = null; // the shared guest is SharedGuest's to close
        }
    }

    @Order(1)
    @ParameterizedTest(name = "mtu 1024 {0} urdma-server={1}")
    @CsvSource({"ib_write_lat,true", "ib_write_lat,false", "ib_send_lat,true", "ib_send_lat,false", "ib_read_lat,true",
            "ib_read_lat,false"})
    void atMtu1024TheStockLatencyToolsAndUrdmaPerfComplete(String tool, boolean urdmaServer) throws Exception {
        runCase(tool, urdmaServer, 1024, 4096);
    }

    @Order(2)
    @ParameterizedTest(name = "mtu 4096 {0} urdma-server={1}")
    @CsvSource({"ib_write_lat,true", "ib_write_lat,false", "ib_send_lat,true", "ib_send_lat,false", "ib_read_lat,true",
            "ib_read_lat,false"})
    void atMtu4096TheStockLatencyToolsAndUrdmaPerfComplete(String tool, boolean urdmaServer) throws Exception {
        guestAt4096();
        runCase(tool, urdmaServer, 4096, 16384);
    }

    /** perftest's default latency message: 2 bytes, posted INLINE by the stock tool. */
    @Order(3)
    @ParameterizedTest(name = "2 bytes {0} urdma-server={1}")
    @CsvSource({"ib_write_lat,true", "ib_write_lat,false", "ib_send_lat,true", "ib_send_lat,false"})
    void theDefaultTwoByteMessagesComplete(String tool, boolean urdmaServer) throws Exception {
        guestAt4096();
        runCase(tool, urdmaServer, 4096, 2);
    }

    private void guestAt4096() throws Exception {
        if (!guestAt4096) {
            StockToolRun.guestMtu4096(guest);
            guestAt4096 = true;
        }
    }

    /** ib_write_lat's 2-byte runs go past the wrap of the byte it polls (1..255, 0, 1, ...); the rest keep it short. */
    private static int iters(String tool, int size) {
        return tool.equals("ib_write_lat") && size == 2 ? 300 : 100;
    }

    private void runCase(String tool, boolean urdmaServer, int mtu, int size) throws Exception {
        String key = String.format("%4d | %-26s | %-26s", mtu, tool + " -c RC -s " + size,
                urdmaServer ? "urdma server, stock client" : "stock server, urdma client");
        results.record(key, () -> {
            check(tool, urdmaServer, mtu, size);
            return null;
        });
    }

    private void check(String tool, boolean urdmaServer, int mtu, int size) throws Exception {
        int iters = iters(tool, size);
        String urdmaTest = tool.substring(3).replace('_', '-');
        // -F: the guest's CPU frequency is unknown to perftest
        String toolCmd = tool + " -d rxe0 -x 1 -F -c RC -n " + iters + " -s " + size + " -m " + mtu;
        String tag = "mtu" + mtu + "-" + tool + "-s" + size + (urdmaServer ? "-urdma-server" : "-urdma-client");
        Path bridgePcap = out.resolve(tag + "-bridge.pcap");
        List<String> args = List.of("perf", urdmaTest, "-c", "RC", "-m", Integer.toString(mtu),
                "-n", Integer.toString(iters), "-s", Integer.toString(size), "--pcap", out.resolve(tag + "-urdma.pcap").toString());
        StockToolRun.Run r = StockToolRun.run(fx, out, tag, args, toolCmd, urdmaServer, bridgePcap);
        Side u = r.urdma();
        GuestResult g = r.guest();
        String transcript = r.transcript();
        assertEquals(0, u.exit(), "urdma perf exit\n" + transcript);
        assertEquals(0, g.exitCode(), "stock " + tool + " exit\n" + transcript);
        // the stock tool's result row (ib_read_lat's server measures nothing and prints no row); its values may read
        // "inf" when perftest's CPU clock calibration fails on the loaded TCG guest ("Correlation coefficient r^2 < 0.9")
        if (!(tool.equals("ib_read_lat") && !urdmaServer)) {
            assertTrue(Pattern.compile("(?m)^\\s*" + size + "\\s+" + iters + "\\s+([0-9.]+|inf)\\s+([0-9.]+|inf)").matcher(g.output()).find(),
                    "the stock tool's result row\n" + transcript);
        }
        for (String check : urdmaChecks(urdmaTest, urdmaServer, size, iters)) {
            assertTrue(u.out().contains(check), "urdma's memory check '" + check + "'\n" + transcript);
        }
        int valid = CaptureChecks.assertAllDecode(bridgePcap, out.resolve(tag + "-decode.txt"));
        assertTrue(valid >= iters, "RoCE frames on the bridge: " + valid);
        // the path MTU was the one asked for: the largest frame carries a full MTU of payload (14 Ethernet + 20 IPv4 +
        // 8 UDP + 12 BTH + 4 ICRC around it, plus at most a 16-byte RETH or a 4-byte AETH, and the pad to 4 bytes)
        int largest = RoceTally.largestRoceFrame(bridgePcap);
        int payload = Math.min(mtu, size);
        assertTrue(largest >= 58 + payload && largest <= 58 + 16 + (payload + 3 & ~3), "largest frame " + largest + " for MTU " + mtu
                + " and " + size + "-byte messages");
    }

    /** What urdma's side must have printed: its check of its own memory (a broken one fails the run with exit 1). */
    private static List<String> urdmaChecks(String test, boolean urdmaServer, int size, int iters) {
        return switch (test) {
            case "write-lat" -> List.of("remote memory verified: " + size + " bytes (zeros, the last the count " + (byte) iters + ")");
            case "send-lat" -> List.of("received data: " + size + " bytes in place, nothing past them");
            default -> urdmaServer ? List.of() : List.of("READ data: " + size + " bytes in place, nothing past them");
        };
    }

    /**
     * RNR with rxe the receiver: the stock ib_send_bw server keeps one receive posted (-r 1, reposted as each message
     * completes), urdma's send-bw client keeps its window of SENDs in flight, so rxe answers RNR NAKs (its
     * min_rnr_timer 12 = 0.64 ms) and urdma sends again after each timer. Both exit 0, every message arrives; the
     * evidence: urdma's RNR NAK counter, rxe's send_rnr_err, and in the capture RNR NAKs from rxe each followed by a
     * resend of the NAK'd PSN from urdma.
     */
    @Order(4)
    @Test
    void aStockSendBwServerWithOneReceivePostedRnrNaksUrdmaWhichRetries() throws Exception {
        guestAt4096();
        String key = "4096 | ib_send_bw -c RC -r 1 (RNR)     | stock server, urdma client";
        results.record(key, () -> {
            int iters = 200, size = 4096;
            String tag = "rnr-rxe-receiver";
            Path bridgePcap = out.resolve(tag + "-bridge.pcap");
            GuestResult help = guest.run("ib_send_bw --help 2>&1 | grep -i rx-depth", STEP);
            assertTrue(help.output().contains("--rx-depth"), "ib_send_bw has -r/--rx-depth\n" + help);
            Map<String, Long> before = StockToolRun.rxeCounters(guest);
            List<String> args = List.of("perf", "send-bw", "-c", "RC", "-m", "4096", "-n", Integer.toString(iters),
                    "-s", Integer.toString(size), "-t", "16");
            StockToolRun.Run r = StockToolRun.run(fx, out, tag, args, "ib_send_bw -d rxe0 -x 1 -F -c RC -m 4096 -r 1 -n " + iters
                    + " -s " + size, false, bridgePcap);
            Map<String, Long> after = StockToolRun.rxeCounters(guest);
            RoceTally fromRxe = RoceTally.of(bridgePcap, GUEST_IP);
            RoceTally.RnrOutcome rnr = RoceTally.rnrOutcome(bridgePcap, GUEST_IP, URDMA_IP);
            StringBuilder delta = new StringBuilder();
            after.forEach((k, v) -> {
                long d = v - before.getOrDefault(k, 0L);
                if (d != 0) delta.append(k).append(" +").append(d).append('\n');
            });
            String transcript = r.transcript() + "\nrxe hw_counters delta:\n" + delta + "capture, from rxe: " + fromRxe
                    + "\nRNR NAKs from rxe: " + rnr + " (retried: urdma sent the PSN again; superseded: rxe ACKed it first)\n";
            Files.writeString(out.resolve(tag + ".txt"), transcript);
            System.out.println("[interop] " + tag + "\n" + transcript);
            assertEquals(0, r.urdma().exit(), transcript);
            assertEquals(0, r.guest().exitCode(), transcript);
            assertTrue(Pattern.compile("(?m)^\\s*" + size + "\\s+" + iters + "\\s+([0-9.]+|inf)").matcher(r.guest().output()).find(),
                    "the stock server's result row\n" + transcript);
            assertTrue(fromRxe.rnrNaks() > 0, "rxe sent RNR NAKs\n" + transcript);
            assertEquals(java.util.Set.of(12), fromRxe.rnrTimerCodes(), "with perftest's min_rnr_timer\n" + transcript);
            Matcher m = Pattern.compile("RNR NAKs received (\\d+)").matcher(r.urdma().out());
            assertTrue(m.find(), transcript);
            assertEquals(fromRxe.rnrNaks(), Long.parseLong(m.group(1)), "urdma counted every RNR NAK in the capture\n" + transcript);
            assertEquals(fromRxe.rnrNaks(), after.getOrDefault("send_rnr_err", 0L) - before.getOrDefault("send_rnr_err", 0L),
                    "rxe counted the RNR NAKs it sent\n" + transcript);
            // each RNR NAK was answered by a resend of its PSN, unless a copy already in flight got through first
            assertEquals(0, rnr.open(), "an RNR NAK that urdma neither retried nor saw overtaken\n" + transcript);
            assertTrue(rnr.retried() > 0 && rnr.retried() + rnr.superseded() == fromRxe.rnrNaks(), transcript);
            CaptureChecks.assertAllDecode(bridgePcap, out.resolve(tag + "-decode.txt"));
            return fromRxe.rnrNaks() + " RNR NAKs from rxe (send_rnr_err +" + fromRxe.rnrNaks() + "), urdma counted "
                    + m.group(1) + ", retried " + rnr.retried() + ", " + rnr.superseded() + " overtaken by an earlier copy";
        });
    }

}
