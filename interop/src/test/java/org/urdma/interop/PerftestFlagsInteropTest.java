package org.urdma.interop;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * perftest's everyday flags against the stock 6.06 tools on rxe (S→U: stock server, urdma client; U→S: urdma server,
 * stock client), on the run's shared guest (active_mtu 1024), one short case each: -o 4 (read_bw S→U), -q 4 with -l 4
 * and -I 64 (write_bw S→U) and -q 4 (write_bw U→S), both reporting n × q iterations as the stock side does;
 * ib_atomic_lat both -A types with urdma as client (no READ before the first atomic: perftest grants that QP atomic
 * access only); -b --report-both for write_bw and send_bw in both roles (the summed rows agree); a stock -b server
 * against a urdma client without -b, and a urdma -b client against a stock server without it (write_bw and send_bw),
 * fail at once, naming -b.
 * Results: interop/target/interop/perftest-flags/results.md.
 */
@Tag("root")
@Tag("interop")
class PerftestFlagsInteropTest extends GuestToolTest {
    private static final int MTU = 1024;
    private static final String ROW = "\\s+([0-9.]+|inf)\\s+([0-9.]+|inf)";

    private StockToolRun.Table results;

    PerftestFlagsInteropTest() {
        super("perftest-flags", "ib_write_bw ib_read_bw ib_send_bw ib_atomic_lat ib_atomic_bw");
    }

    @BeforeAll
    void prepare() throws Exception {
        results = new StockToolRun.Table(out.resolve("results.md"), "urdma perf -o/-l/-I/-q, atomic_lat, -b against stock perftest 6.06 on rxe (PerftestFlagsInteropTest)");
    }

    @AfterAll
    void teardown() throws Exception {
        if (results != null) results.write();
        guest = null; // SharedGuest's to close
    }

    /** Both sides print the same -s row with n × q iterations (the server: its client's report, or its own receives). */
    @ParameterizedTest(name = "{0} {1} urdma-server={2}")
    @CsvSource(delimiter = '|', value = {
        "ib_read_bw|-o 4 -s 1024 -n 1000|false|1000",
        "ib_write_bw|-q 4 -l 4 -I 64 -s 64 -n 1000|false|4000",
        "ib_write_bw|-q 4 -s 64 -n 1000|true|4000"})
    void theFlagsRunAgainstTheStockToolWithItsIterationCounts(String tool, String flags, boolean urdmaServer, long iters)
            throws Exception {
        results.record(key(tool + " " + flags, urdmaServer), () -> {
            StockToolRun.Run r = run(tool, urdmaServer, stockCmd(tool, flags), flags);
            assertEquals(0, r.urdma().exit(), "urdma perf exit\n" + r.transcript());
            assertEquals(0, r.guest().exitCode(), "stock " + tool + " exit\n" + r.transcript());
            int size = Integer.parseInt(match("-s (\\d+)", flags, r));
            Pattern row = Pattern.compile("(?m)^\\s*" + size + "\\s+" + iters + ROW);
            assertTrue(row.matcher(r.guest().output()).find(), "stock row with " + iters + " iterations\n" + r.transcript());
            assertTrue(row.matcher(r.urdma().out()).find(), "urdma row with " + iters + " iterations\n" + r.transcript());
            if (!urdmaServer) {
                double peak = Double.parseDouble(match("(?m)^\\s*" + size + "\\s+" + iters + "\\s+([0-9.]+)", r.urdma().out(), r));
                double avg = Double.parseDouble(match("(?m)^\\s*" + size + "\\s+" + iters + "\\s+[0-9.]+\\s+([0-9.]+)", r.urdma().out(), r));
                // perftest's peak is a rate of some stretch of the run: at least the average, not orders above it
                assertTrue(peak >= avg * 0.999 && peak < avg * 20, "peak " + peak + " against average " + avg + "\n" + r.transcript());
                return "peak " + peak + " / average " + avg + " MB/s";
            }
            return null;
        });
    }

    /**
     * No -n on either side: both run perftest's default count (DEF_ITERS, 1000, for every test but write_bw) and print
     * a row of it: send_bw on UD, ib_atomic_bw with both -A types (its memory check counts every operation) and
     * send_bw with --inline_size, each in both roles.
     */
    @ParameterizedTest(name = "{0} {1} urdma-server={2}")
    @CsvSource(delimiter = '|', value = {
        "ib_send_bw|-c UD -s 1024|true", "ib_send_bw|-c UD -s 1024|false",
        "ib_atomic_bw|-A FETCH_AND_ADD|true", "ib_atomic_bw|-A FETCH_AND_ADD|false",
        "ib_atomic_bw|-A CMP_AND_SWAP|true", "ib_atomic_bw|-A CMP_AND_SWAP|false",
        "ib_send_bw|--inline_size 64 -s 64|true", "ib_send_bw|--inline_size 64 -s 64|false"})
    void withNoIterationCountBothSidesRunPerftestsDefault(String tool, String flags, boolean urdmaServer) throws Exception {
        results.record(key(tool + " " + flags + " (no -n)", urdmaServer), () -> {
            StockToolRun.Run r = run(tool, urdmaServer, stockCmd(tool, flags), flags);
            assertEquals(0, r.urdma().exit(), "urdma perf exit\n" + r.transcript());
            assertEquals(0, r.guest().exitCode(), "stock " + tool + " exit\n" + r.transcript());
            int size = tool.equals("ib_atomic_bw") ? 8 : Integer.parseInt(match("-s (\\d+)", flags, r));
            Pattern row = Pattern.compile("(?m)^\\s*" + size + "\\s+1000" + ROW);
            assertTrue(row.matcher(r.guest().output()).find(), "stock row with 1000 iterations\n" + r.transcript());
            assertTrue(row.matcher(r.urdma().out()).find(), "urdma row with 1000 iterations\n" + r.transcript());
            if (tool.equals("ib_atomic_bw")) {
                String type = flags.substring(3);
                String check = urdmaServer ? type + " moved each of 64 target addresses as 1000 operations do" : type + " results verified: 1000 operations";
                assertTrue(r.urdma().out().contains(check), "urdma's check '" + check + "'\n" + r.transcript());
            }
            return "1000 iterations on both sides";
        });
    }

    /**
     * -b --report-both, both roles: both sides send at once and print the sum of both directions (each side adds the
     * other's report to its own, so the two sums agree), then each direction's row.
     */
    @ParameterizedTest(name = "{0} -b --report-both urdma-server={1}")
    @CsvSource({"ib_write_bw,true", "ib_write_bw,false", "ib_send_bw,true", "ib_send_bw,false"})
    void bothDirectionsRunAtOnceAgainstTheStockTool(String tool, boolean urdmaServer) throws Exception {
        String flags = "-b --report-both -s 1024 -n 1000";
        results.record(key(tool + " " + flags, urdmaServer), () -> {
            StockToolRun.Run r = run(tool, urdmaServer, stockCmd(tool, flags), flags);
            assertEquals(0, r.urdma().exit(), "urdma perf exit\n" + r.transcript());
            assertEquals(0, r.guest().exitCode(), "stock " + tool + " exit\n" + r.transcript());
            Pattern row = Pattern.compile("(?m)^\\s*1024\\s+1000\\s+([0-9.]+)\\s+([0-9.]+)");
            Matcher stock = row.matcher(r.guest().output()), urdma = row.matcher(r.urdma().out());
            assertTrue(stock.find() && urdma.find(), "both print the summed row first\n" + r.transcript());
            double sum = Double.parseDouble(urdma.group(2)), stockSum = Double.parseDouble(stock.group(2));
            assertEquals(stockSum, sum, 0.02 + stockSum * 0.01, "both sides print the same sum\n" + r.transcript());
            assertTrue(urdma.find() && urdma.find(), "urdma's local and remote rows\n" + r.transcript());
            assertTrue(r.urdma().out().contains(" Remote results: "), r.transcript());
            assertTrue(r.urdma().out().contains(tool.equals("ib_write_bw") ? "places of 1024 bytes written" : "1024-byte messages received: 1000"),
                    "urdma checked what the peer's run left\n" + r.transcript());
            return "sum " + sum + " MB/s (stock " + stockSum + ")";
        });
    }

    /** ib_atomic_lat's server registers its buffer for atomics only: urdma's client must not READ it first. */
    @ParameterizedTest(name = "ib_atomic_lat -A {0}")
    @CsvSource({"CMP_AND_SWAP", "FETCH_AND_ADD"})
    void theAtomicLatencyClientRunsAgainstTheStockServer(String type) throws Exception {
        String flags = "-A " + type + " -n 200";
        results.record(key("ib_atomic_lat " + flags, false), () -> {
            StockToolRun.Run r = run("ib_atomic_lat", false, stockCmd("ib_atomic_lat", flags), flags);
            assertEquals(0, r.urdma().exit(), "urdma perf exit\n" + r.transcript());
            assertEquals(0, r.guest().exitCode(), "stock ib_atomic_lat exit\n" + r.transcript());
            assertTrue(Pattern.compile("(?m)^\\s*8\\s+200\\s+").matcher(r.urdma().out()).find(), "urdma's 8-byte row\n" + r.transcript());
            assertTrue(r.urdma().out().contains("results verified"), r.transcript());
            return null;
        });
    }

    /**
     * A stock -b server runs its own direction at the barrier urdma's client meets after its run: write_bw writes into
     * the client's advertised region (seen once the server's report is in), send_bw sends to a client that posts no
     * receives (RNR NAKs). urdma fails naming -b, well before the stock side's run could time out.
     */
    @ParameterizedTest(name = "{0} -b stock server, urdma client without -b")
    @CsvSource({"ib_write_bw", "ib_send_bw"})
    void aBidirectionalStockServerIsRefusedNamingTheFlag(String tool) throws Exception {
        String flags = "-s 1024 -n 1000";
        results.record(key(tool + " -b (stock only) " + flags, false), () -> {
            long t0 = System.nanoTime();
            StockToolRun.Run r = run(tool, false, "timeout 10 " + stockCmd(tool, flags) + " -b", flags);
            long ms = (System.nanoTime() - t0) / 1_000_000;
            assertNotEquals(0, r.urdma().exit(), "urdma must fail\n" + r.transcript());
            assertTrue(r.urdma().out().contains("-b: "), "the message names -b\n" + r.transcript());
            return "urdma failed naming -b; the case took " + ms + " ms (the stock side waits out its 10 s timeout)";
        });
    }

    /**
     * urdma with -b, the stock server without: urdma's write_bw client finds no WRITE of the server's in its region, its
     * send_bw client no SEND of the server's during its own run and a second after.
     */
    @ParameterizedTest(name = "{0}: urdma client -b, stock server without")
    @CsvSource({"ib_write_bw", "ib_send_bw"})
    void aStockServerWithoutBIsRefusedNamingTheFlag(String tool) throws Exception {
        String flags = "-s 1024 -n 1000";
        results.record(key(tool + " -b (urdma only) " + flags, false), () -> {
            StockToolRun.Run r = run(tool, false, "timeout 10 " + stockCmd(tool, flags), flags + " -b");
            assertNotEquals(0, r.urdma().exit(), "urdma must fail\n" + r.transcript());
            assertTrue(r.urdma().out().contains("-b: "), "the message names -b\n" + r.transcript());
            return null;
        });
    }

    private StockToolRun.Run run(String tool, boolean urdmaServer, String cmd, String flags) throws Exception {
        String tag = tool + "-" + flags.replaceAll("[^A-Za-z0-9]+", "") + (urdmaServer ? "-urdma-server" : "-urdma-client");
        List<String> args = new ArrayList<>(List.of("perf", tool.substring(3).replace("_", "-"), "-m", Integer.toString(MTU)));
        if (!flags.contains("-c ")) args.addAll(List.of("-c", "RC"));
        args.addAll(List.of(flags.split(" ")));
        return StockToolRun.run(fx, out, tag, args, cmd, urdmaServer, null);
    }

    private static String stockCmd(String tool, String flags) {
        return tool + " -d rxe0 -x 1 -F" + (flags.contains("-c ") ? "" : " -c RC") + " -m " + MTU + " " + flags;
    }

    private static String key(String what, boolean urdmaServer) {
        return String.format("%4d | %-24s | %-26s", MTU, what, urdmaServer ? "urdma server, stock client" : "stock server, urdma client");
    }

    private static String match(String regex, String text, StockToolRun.Run r) {
        Matcher m = Pattern.compile(regex).matcher(text);
        assertTrue(m.find(), "'" + regex + "' in\n" + r.transcript());
        return m.group(1);
    }
}
