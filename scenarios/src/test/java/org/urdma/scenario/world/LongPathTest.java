package org.urdma.scenario.world;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/**
 * 100 Gbit/s with an 80 ms RTT: go-back-N RC WRITE keeps a gigabyte sent and unacknowledged, in a few tens of MB of
 * frames and without a gigabyte of memory, the destination verifies by pattern, and one seed gives one run.
 */
class LongPathTest {
    private static final LongPath.Options PATH = new LongPath.Options(100_000_000_000L, 80_000_000L, 120_000_000L,
            true, 3);

    @Test
    void aGigabyteInFlightFitsInMemoryVerifiesAndRepeats() {
        LongPath.Result r = LongPath.run(PATH);
        // the bandwidth-delay product: 80 ms at 100 Gbit/s less the headers' share (4 KiB in 4154-byte frames)
        assertTrue(r.unackedFrameBytes() >= 1_000_000_000L, "frame bytes in flight: " + r.unackedFrameBytes());
        assertTrue(r.unackedHighWater() >= 0.97 * 100e9 / 8 * 0.080 * 4096 / 4178, "payload in flight: "
                + r.unackedHighWater());
        assertTrue(r.verified(), "destination holds the pattern where every completed message wrote");
        assertTrue(r.flow().messages() > 50, "messages completed: " + r.flow().messages());
        assertEquals(0, r.flow().retransmitted(), "a clean path resends nothing");
        assertTrue(r.framePoolBytes() < 100_000_000L, "frames in flight take " + r.framePoolBytes() + " bytes");
        long rss = r.rssBytes();
        assertTrue(rss == 0 || rss < 1_500_000_000L, "resident set " + rss + " bytes (byte payloads would need > 3.5 GB)");

        LongPath.Result again = LongPath.run(PATH);
        assertEquals(r.flow(), again.flow(), "same seed, same flow result");
        assertEquals(r.digest(), again.digest(), "same seed, same counters and event count");
        assertEquals(r.unackedHighWater(), again.unackedHighWater());
    }
}
