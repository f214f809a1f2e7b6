package org.urdma.tools.perf;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;
import org.urdma.verbs.WrOpcode;

/** perftest's buffer layout and its increase_loc_addr/increase_rem_addr walk through the cycle buffer. */
class PerftestBwLayoutTest {
    @Test
    void aSmallMessageMovesOnByItsCacheLineRoundedSizeAndWrapsAtThePage() {
        long step = PerftestBw.inc(100, 64);
        assertEquals(128, step);
        PerftestBw.Addressing a = new PerftestBw.Addressing(step, (int) (4096 / step));
        assertEquals(32, a.period());
        assertEquals(0, a.offset(0));
        assertEquals(128, a.offset(1));
        assertEquals(3968, a.offset(31));
        assertEquals(0, a.offset(32)); // ((scnt + 1) % (cycle / INC(size))) == 0 → back to the first address
        assertEquals(5, a.place(37));
    }

    @Test
    void atomicsHitSixtyFourPlacesOneCacheLineApart() {
        PerftestBw.Addressing a = new PerftestBw.Addressing(PerftestBw.inc(8, 64), (int) (4096 / PerftestBw.inc(8, 64)));
        assertEquals(64, a.period());
        assertEquals(63 * 64, a.offset(63));
        assertEquals(0, a.offset(64));
    }

    @Test
    void theAdvertisedRegionIsTheSecondHalfOfBuffSize() {
        // BUFF_SIZE = max(size, page) rounded up to the cache line: the source is the first, the target the second
        PerftestBw.Layout big = PerftestBw.Layout.of(WrOpcode.RDMA_WRITE, 65536, 128, 5000);
        assertEquals(65536, big.target());
        assertEquals(2 * 65536 + PerftestBw.GUARD, big.bytes());
        PerftestBw.Layout small = PerftestBw.Layout.of(WrOpcode.RDMA_WRITE, 100, 128, 5000);
        assertEquals(4096, small.target());
        // READ results and atomic results: one slot per outstanding request; SEND: one per posted receive (≤ 512, ≤ -n)
        assertEquals(128, PerftestBw.Layout.of(WrOpcode.RDMA_READ, 1000, 128, 5000).slots());
        assertEquals(512, PerftestBw.Layout.of(WrOpcode.SEND, 1000, 128, 5000).slots());
        assertEquals(100, PerftestBw.Layout.of(WrOpcode.SEND, 1000, 128, 100).slots());
        assertEquals(PerftestBw.inc(1000 + 40, 64), PerftestBw.Layout.of(WrOpcode.SEND, 1000, 128, 100).slotSize());
    }
}
