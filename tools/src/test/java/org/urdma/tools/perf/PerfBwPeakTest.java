package org.urdma.tools.perf;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The BW peak of a run is perftest's (print_report_bw): the least time per message from a post to a later completion.
 * Over a link that serializes at a fixed rate no stretch of messages can cross faster than that rate, so the peak is
 * at most the link's rate: a peak taken over short intervals of completions (which arrive in batches) is not.
 */
class PerfBwPeakTest {
    private static final Pattern ROW = Pattern.compile("\\n (\\d+)\\s+(\\d+)\\s+([0-9.]+)\\s+([0-9.]+)\\s+[0-9.]+\\n");
    /** 1 Gbit/s in perftest's MB/sec (2^20 bytes). */
    private static final double ONE_GBIT_MIB = 1e9 / 8 / (1 << 20);

    @Test
    void thePeakOverAOneGigabitLinkIsAtMostOneGigabit() {
        Matcher row = row(PerfCommandTest.run("perf", "write-bw", "-s", "65536", "-n", "200", "--link-gbit", "1", "--link-slots", "256",
                "--no-copy-baseline"));
        double peak = Double.parseDouble(row.group(3));
        double avg = Double.parseDouble(row.group(4));
        assertTrue(peak <= ONE_GBIT_MIB, "peak " + peak + " MB/sec over a " + ONE_GBIT_MIB + " MB/sec link (average " + avg + ")");
        assertTrue(peak >= avg * 0.999, "the peak is some stretch of the run: at least the average " + avg + ", was " + peak);
    }

    @Test
    void aRunOfMoreIterationsThanPerftestTimesHasNoPeak() {
        Matcher row = row(PerfCommandTest.run("perf", "send-bw", "-s", "2", "-n", "20001"));
        assertEquals("20001", row.group(2));
        assertEquals(0.0, Double.parseDouble(row.group(3)), "perftest's noPeak above 20000 iterations");
    }

    @Test
    void aRunByDurationHasNoPeak() {
        Matcher row = row(PerfCommandTest.run("perf", "write-bw", "-s", "4096", "-D", "1", "--no-copy-baseline"));
        assertEquals(0.0, Double.parseDouble(row.group(3)), "perftest's noPeak with -D");
    }

    private static Matcher row(String out) {
        Matcher m = ROW.matcher(out);
        assertTrue(m.find(), out);
        return m;
    }
}
