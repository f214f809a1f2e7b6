package org.urdma.tools.perf;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * With no -n, -t or -s a run uses perftest's defaults for its test (perftest_parameters.h): a stock peer started with
 * its defaults counts the same iterations. Read from what the run prints, so the defaults the run used are checked.
 */
class PerftestDefaultsTest {
    private static final Pattern ROW = Pattern.compile("\\n (\\d+)\\s+(\\d+)\\s+[0-9.]+");
    private static final Pattern TX_DEPTH = Pattern.compile(" TX depth        : (\\d+)");

    @ParameterizedTest(name = "{0}")
    @CsvSource({"write-bw,5000,128,65536", "read-bw,1000,128,65536", "send-bw,1000,128,65536", "atomic-bw,1000,128,8",
            "write-lat,1000,1,2", "read-lat,1000,1,2", "send-lat,1000,1,2", "atomic-lat,1000,1,8"})
    void aRunWithoutCountsUsesPerftestsDefaultsForItsTest(String test, long iters, int txDepth, int size) {
        String out = PerfCommandTest.run("perf", test, "--link", "memory");
        Matcher depth = TX_DEPTH.matcher(out);
        assertTrue(depth.find(), out);
        assertEquals(txDepth, Integer.parseInt(depth.group(1)), "TX depth of " + test);
        Matcher row = ROW.matcher(out);
        assertTrue(row.find(), out);
        assertEquals(size, Integer.parseInt(row.group(1)), "#bytes of " + test);
        assertEquals(iters, Long.parseLong(row.group(2)), "#iterations of " + test);
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource({"write-bw", "send-bw"})
    void theTxDepthIsAtMostTheIterationsAsInPerftest(String test) {
        String out = PerfCommandTest.run("perf", test, "-n", "40", "-s", "64", "--link", "memory");
        Matcher depth = TX_DEPTH.matcher(out);
        assertTrue(depth.find(), out);
        assertEquals(40, Integer.parseInt(depth.group(1)), out);
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource({"send-bw,UD", "send-bw,UC"})
    void unconnectedSendBwCountsPerftestsThousand(String test, String type) {
        String out = PerfCommandTest.run("perf", test, "-c", type, "-s", "1024", "--link", "memory");
        Matcher row = ROW.matcher(out);
        assertTrue(row.find(), out);
        assertEquals(1000, Long.parseLong(row.group(2)), out);
    }
}
