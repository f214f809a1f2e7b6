package org.urdma.transport.rate;

import static org.junit.jupiter.api.Assertions.*;

import org.junit.jupiter.api.Test;

/** FixedRate: a token bucket of one burst at a fixed payload rate, whatever the engine's timing. */
class FixedRateTest {
    private static final long GBIT = 1_000_000_000L;
    private static final int PACKET = 4096; // 32 768 ns at 1 Gbit/s

    /** Sends whenever allowed, the engine looking every {@code stepNs}; returns packets sent by {@code endNs}. */
    private static long drive(RateControl r, long startNs, long endNs, long stepNs) {
        long sent = 0;
        for (long now = startNs; now < endNs; now += stepNs) {
            while (r.nextSendTime(now) <= now) {
                r.onSent(PACKET, now);
                sent++;
            }
        }
        return sent;
    }

    @Test
    void anEngineLookingEveryMillisecondStillSendsAtTheRate() {
        RateControl r = FixedRate.factory(GBIT, 65536).create();
        long sent = drive(r, 0, 1_000_000_000L, 1_000); // a pass every microsecond for a second
        assertEquals(GBIT / (PACKET * 8.0), sent, 17, "one burst of slack at most");
        RateControl late = FixedRate.factory(GBIT, 4 * 65536).create();
        // woken every 1 ms (a poll(2) sleep): a burst of 256 KiB covers the 122 KiB a millisecond is worth
        long lateSent = drive(late, 0, 1_000_000_000L, 1_000_000);
        assertEquals(GBIT / (PACKET * 8.0), lateSent, 65, "no rate lost to late passes");
    }

    @Test
    void aQpHeldBackCatchesUpOneBurstThenKeepsTheRate() {
        RateControl r = FixedRate.factory(GBIT, 65536).create();
        r.onSent(PACKET, 0);
        long resume = 50_000_000; // paused 50 ms (PFC, an empty queue)
        int burst = 0;
        while (r.nextSendTime(resume) <= resume) {
            r.onSent(PACKET, resume);
            burst++;
        }
        assertEquals(17, burst, "the packet due now and 64 KiB of credit, not 50 ms of it");
        assertEquals(resume + 32_768, r.nextSendTime(resume), "then one packet per 32.768 us");
    }

    @Test
    void exactOverManyPacketsWithoutPerPacketRounding() {
        RateControl r = FixedRate.factory(3_000_000_000L, 0).create(); // 4096 B = 10 922.67 ns
        long now = 0;
        for (int i = 0; i < 3_000; i++) {
            now = Math.max(now, r.nextSendTime(now));
            r.onSent(PACKET, now);
        }
        assertEquals(3_000L * PACKET * 8 * 1_000_000_000L / 3_000_000_000L, r.nextSendTime(now));
        assertEquals("fixed:3000000000", r.name());
    }

    @Test
    void badSettingsAreRefusedNamingTheField() {
        assertTrue(assertThrows(IllegalArgumentException.class, () -> FixedRate.factory(0)).getMessage().startsWith("rate:"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> FixedRate.factory(1, -1)).getMessage().startsWith("burst:"));
    }
}
