package org.urdma.interop;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.MethodSource;
import org.urdma.interop.UrdmaInNamespace.Side;

/**
 * {@code urdma perf} against the unmodified perftest 6.06 bandwidth tools on the kernel's rxe, both ways: urdma has its
 * own TAP on the guest's bridge (its own MAC, 10.77.0.50; its out-of-band TCP runs on the namespace's 10.77.0.1), the
 * guest runs ib_write_bw, ib_read_bw, ib_send_bw or ib_atomic_bw with -x 1 (RoCEv2). Every case: both exit 0, urdma's
 * side reports its memory checks (which fail the run when broken), the stock tool prints its result row, and a
 * capture of the bridge decodes with every ICRC good. The run's shared guest (SharedGuest) serves all cases: eth0 at
 * 1500 (active_mtu 1024), then at 4200 (active_mtu 4096). The table of results lands in
 * interop/target/interop/perftest-bw/results.md.
 */
@Tag("root")
@Tag("interop")
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class PerftestBwInteropTest extends GuestToolTest {
    private static final Duration STEP = StockToolRun.STEP;
    private static final String STOCK_TOOLS = "ib_write_bw ib_read_bw ib_send_bw ib_atomic_bw";

    private boolean guestAt4096;
    private StockToolRun.Table results;

    PerftestBwInteropTest() {
        // the run's one guest, eth0 at 1500 (SharedGuest puts it back there after this class)
        super("perftest-bw", STOCK_TOOLS);
    }

    @BeforeAll
    void prepare() throws Exception {
        results = new StockToolRun.Table(out.resolve("results.md"), "urdma perf against stock perftest 6.06 on rxe (PerftestBwInteropTest)");
    }

    @AfterAll
    void teardown() throws Exception {
        try {
            if (results != null) results.write();
        } finally {
            guest = null; // the shared guest is SharedGuest's to close
        }
    }

    /** One row of the matrix: the stock tool, its -c, and ib_atomic_bw's -A. */
    record Tool(String stock, String urdma, String transport, String atomic, int size) {
        /** "TOOL TRANSPORT [ATOMIC_TYPE | SIZE]": size 0 = the default of {@link #size}. */
        static Tool parse(String spec) {
            String[] p = spec.split(" ");
            String stock = p[0];
            String urdma = stock.substring(3).replace("_", "-");
            boolean sized = p.length > 2 && p[2].chars().allMatch(Character::isDigit);
            return new Tool(stock, urdma, p[1], p.length > 2 && !sized ? p[2] : null, sized ? Integer.parseInt(p[2]) : 0);
        }

        String name() {
            return stock + " -c " + transport + (atomic != null ? " -A " + atomic : "") + (size > 0 ? " -s " + size : "");
        }
    }

    /** Every tool and transport of the issue, each with urdma as server and as client; run at both MTUs. */
    static Stream<Arguments> matrix() {
        return Stream.of("ib_write_bw RC", "ib_read_bw RC", "ib_send_bw RC", "ib_atomic_bw RC CMP_AND_SWAP",
                        "ib_atomic_bw RC FETCH_AND_ADD", "ib_write_bw UC", "ib_send_bw UC", "ib_send_bw UD")
                .flatMap(spec -> Stream.of(Arguments.of(spec, true), Arguments.of(spec, false)));
    }

    @Order(1)
    @ParameterizedTest(name = "mtu 1024 {0} urdma-server={1}")
    @MethodSource("matrix")
    void atMtu1024TheStockBandwidthToolsAndUrdmaPerfComplete(String spec, boolean urdmaServer) throws Exception {
        runCase(Tool.parse(spec), urdmaServer, 1024);
    }

    @Order(2)
    @ParameterizedTest(name = "mtu 4096 {0} urdma-server={1}")
    @MethodSource("matrix")
    void atMtu4096TheStockBandwidthToolsAndUrdmaPerfComplete(String spec, boolean urdmaServer) throws Exception {
        if (!guestAt4096) {
            StockToolRun.guestMtu4096(guest);
            guestAt4096 = true;
        }
        runCase(Tool.parse(spec), urdmaServer, 4096);
    }

    /**
     * perftest moves a message of at most half the page (the cycle buffer) on by INC(size, 64) per request, locally and
     * remotely: small messages check that both sides agree on every place (and that nothing lands between them).
     */
    @Order(3)
    @ParameterizedTest(name = "small messages {0} urdma-server={1}")
    @CsvSource({"ib_write_bw RC 100,true", "ib_write_bw RC 100,false", "ib_read_bw RC 1000,true", "ib_read_bw RC 1000,false",
            "ib_send_bw RC 100,true", "ib_send_bw RC 100,false"})
    void smallMessagesCycleThroughThePageLikePerftest(String spec, boolean urdmaServer) throws Exception {
        runCase(Tool.parse(spec), urdmaServer, 4096);
    }

    /** Message size: 16 KiB (16 or 4 packets), UD one MTU, atomics 8 bytes, or the case's own. */
    private static int size(Tool t, int mtu) {
        if (t.size() > 0) return t.size();
        if (t.atomic() != null) return 8;
        return t.transport().equals("UD") ? mtu : 16384;
    }

    private static int iters(Tool t) {
        return t.atomic() != null ? 300 : 100;
    }

    private void runCase(Tool t, boolean urdmaServer, int mtu) throws Exception {
        String key = String.format("%4d | %-32s | %-26s", mtu, t.name(), urdmaServer ? "urdma server, stock client" : "stock server, urdma client");
        results.record(key, () -> {
            check(t, urdmaServer, mtu);
            return null;
        });
    }

    private void check(Tool t, boolean urdmaServer, int mtu) throws Exception {
        int size = size(t, mtu), iters = iters(t);
        // -F: the guest's CPU frequency is unknown to perftest; UD takes the port's active MTU (no -m)
        String toolCmd = t.stock() + " -d rxe0 -x 1 -F -n " + iters + " -c " + t.transport()
                + (t.atomic() != null ? " -A " + t.atomic() : " -s " + size) + (t.transport().equals("UD") ? "" : " -m " + mtu);
        String tag = "mtu" + mtu + "-" + t.stock() + "-" + t.transport().toLowerCase(Locale.ROOT)
                + (t.atomic() != null ? "-" + t.atomic().toLowerCase(Locale.ROOT) : "") + (t.size() > 0 ? "-s" + size : "") + (urdmaServer ? "-urdma-server" : "-urdma-client");
        Path bridgePcap = out.resolve(tag + "-bridge.pcap");
        StockToolRun.Run r = StockToolRun.run(fx, out, tag, urdmaArgs(t, mtu, size, iters, urdmaServer, out.resolve(tag + "-urdma.pcap")),
                toolCmd, urdmaServer, bridgePcap);
        Side u = r.urdma();
        GuestResult g = r.guest();
        String transcript = r.transcript();
        assertEquals(0, u.exit(), "urdma perf exit\n" + transcript);
        assertEquals(0, g.exitCode(), "stock " + t.stock() + " exit\n" + transcript);
        // perftest's result row on the stock side: the bytes and iterations of the run (a server prints its client's);
        // "inf" when perftest's CPU clock calibration fails on the loaded TCG guest ("Correlation coefficient r^2 < 0.9")
        int rowSize = t.transport().equals("UD") ? Math.min(size, mtu) : size;
        assertTrue(Pattern.compile("(?m)^\\s*" + rowSize + "\\s+" + iters + "\\s+([0-9.]+|inf)\\s+([0-9.]+|inf)").matcher(g.output()).find(),
                "the stock tool's result row\n" + transcript);
        for (String check : urdmaChecks(t, urdmaServer)) assertTrue(u.out().contains(check), "urdma's memory check '" + check + "'\n" + transcript);

        // every RoCE frame on the bridge, both directions, decodes with a good ICRC
        int valid = CaptureChecks.assertAllDecode(bridgePcap, out.resolve(tag + "-decode.txt"));
        assertTrue(valid >= iters, "RoCE frames on the bridge: " + valid);
        if (t.atomic() == null) {
            // the path MTU was the one asked for: the largest frame carries a full MTU of payload (14 Ethernet + 20 IPv4
            // + 8 UDP + 12 BTH + 4 ICRC around it, plus at most a 16-byte RETH, a 4-byte AETH or an 8-byte DETH)
            int largest = CaptureChecks.largestFrame(bridgePcap);
            int payload = Math.min(mtu, size);
            assertTrue(largest >= 58 + payload && largest <= 58 + 16 + payload, "largest frame on the bridge " + largest
                    + " for MTU " + mtu + " and " + size + "-byte messages");
        }
    }

    /** What urdma's side must have printed: its checks of its own memory (a broken one fails the run). */
    private static List<String> urdmaChecks(Tool t, boolean urdmaServer) {
        String atomic = t.atomic();
        if (urdmaServer) {
            return switch (t.urdma()) {
                case "write-bw" -> List.of("remote memory verified: ", "nothing outside them");
                case "read-bw" -> List.of("unchanged by the client's READs");
                case "send-bw" -> List.of("remote memory verified: " + iters(t) + " messages", "each identical to the client's earlier messages");
                default -> List.of("remote memory verified: " + atomic + " moved each of 64 target addresses as " + iters(t) + " operations do");
            };
        }
        return switch (t.urdma()) {
            case "read-bw" -> List.of("READ data verified: " + iters(t) + " reads", "local memory verified");
            case "atomic-bw" -> List.of(atomic + " results verified: " + iters(t) + " operations", "local memory verified");
            default -> List.of("local memory verified");
        };
    }

    /** urdma perf's own options for a case (StockToolRun adds the link, the address and the peer). */
    private static List<String> urdmaArgs(Tool t, int mtu, int size, int iters, boolean urdmaServer, Path pcap) {
        List<String> a = new ArrayList<>(List.of("perf", t.urdma(), "-c", t.transport(), "-m", Integer.toString(mtu),
                "-n", Integer.toString(iters), "-s", Integer.toString(size), "--pcap", pcap.toString()));
        if (t.atomic() != null) a.addAll(List.of("-A", t.atomic()));
        // UC and UD have no retransmission: a burst faster than the TCG guest takes in is lost and the stock server
        // waits for it forever; the stock sender is paced by its own slowness, urdma's by perftest's rate limit
        if (!urdmaServer && !t.transport().equals("RC")) a.addAll(List.of("--rate_limit", "2", "--rate_units", "M"));
        return a;
    }
}
