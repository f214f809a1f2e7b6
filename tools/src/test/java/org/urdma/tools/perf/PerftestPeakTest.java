package org.urdma.tools.perf;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

/** perftest's BW peak from post and completion times (print_report_bw), on hand-made timelines. */
class PerftestPeakTest {
    /**
     * Ten requests, signaled every 5th: five posted 1 µs apart that complete at 50 µs (a slow start), then five posted
     * from 50 µs that complete at 60 µs. The best stretch is posts 5..9 to completion 9: 10 µs for 5 messages, 2 µs
     * each, where the whole run averages 5.9 µs.
     */
    @Test
    void thePeakIsTheLeastTimePerMessageOfAnyStretchFromAPostToALaterCompletion() {
        PerftestPeak p = new PerftestPeak(10, 1, 5);
        for (int i = 0; i < 5; i++) p.posted(i, 1_000L * (i + 1));
        p.completed(5, 50_000L);
        for (int i = 5; i < 10; i++) p.posted(i, 1_000L * (45 + i));
        p.completed(10, 60_000L);
        assertEquals(1000 * 1e9 / 2_000.0, p.bytesPerSecond(1000), 1e-3);
    }

    /** -q 2: indices count over all QPs; a completion of both QPs' requests counts them all (totccnt). */
    @Test
    void postsAndCompletionsCountOverAllQps() {
        PerftestPeak p = new PerftestPeak(4, 1, 2);
        p.posted(0, 1_000L);
        p.posted(1, 1_000L);
        p.posted(2, 2_000L);
        p.posted(3, 2_000L);
        p.completed(2, 11_000L); // 2 messages, 10 µs after the first post: 5 µs each
        p.completed(4, 13_000L); // 4 messages, 12 µs: 3 µs each; from post 2: 2 messages in 11 µs
        assertEquals(64 * 1e9 / 3_000.0, p.bytesPerSecond(64), 1e-3);
    }

    /** -l 4: only every fourth request has a post time (tposted[i], i += post_list), completions one per list. */
    @Test
    void aPostListTimesOnlyTheFirstRequestOfEachList() {
        PerftestPeak p = new PerftestPeak(8, 4, 4);
        p.posted(0, 1L);
        p.posted(4, 10_000L);
        p.completed(4, 12_000L); // from post 0: 4 in 11.999 µs, the best
        p.completed(8, 30_000L); // from post 0: 8 in 29.999 µs; from post 4: 4 in 20 µs
        assertEquals(4096 * 1e9 / 2_999.75, p.bytesPerSecond(4096), 1e-3);
    }
}
