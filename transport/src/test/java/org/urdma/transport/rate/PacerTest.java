package org.urdma.transport.rate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** The next-available-time pacer under a real-time engine's timing: late wake-ups, idle spells. */
class PacerTest {
    private static final long GBIT = 1_000_000_000L;
    private static final int PACKET = 4096; // 32 768 ns at 1 Gbit/s

    @Test
    void anEngineThatWakesLateEveryPacketStillSendsAtTheRate() {
        Pacer p = new Pacer(GBIT, Pacer.CREDIT_BYTES);
        long now = 0;
        long sent = 0;
        while (now < 1_000_000_000L) {
            p.sent(PACKET, now);
            sent++;
            long due = p.nextAvail();
            now = due + 15_000; // ppoll's wake-up lands 15 us after the deadline
        }
        double expected = GBIT / (PACKET * 8.0);
        assertEquals(expected, sent, expected * 0.01, "the lateness is not lost per packet");
    }

    @Test
    void aQpIdleForLongBurstsOnlyItsCreditThenKeepsTheRate() {
        Pacer p = new Pacer(GBIT, Pacer.CREDIT_BYTES);
        p.sent(PACKET, 0);
        long resume = 50_000_000;
        int burst = 0;
        while (p.nextAvail() <= resume) {
            p.sent(PACKET, resume);
            burst++;
        }
        assertEquals(1 + Pacer.CREDIT_BYTES / PACKET, burst, "the packet due now and 256 KiB of credit (2 ms here), not 50 ms of it");
        assertEquals(resume + 32_768, p.nextAvail(), "then one packet per 32.768 us");
        assertTrue(p.nextAvail() > resume);
    }

    @Test
    void anEngineDescheduledForAMillisecondLosesNoRate() {
        // a thread sharing a core loses it for a scheduler slice now and then: 1 ms every 10 ms here
        Pacer p = new Pacer(GBIT, Pacer.CREDIT_BYTES);
        long now = 0;
        long sent = 0;
        while (now < 1_000_000_000L) {
            p.sent(PACKET, now);
            sent++;
            long due = p.nextAvail();
            now = sent % 300 == 0 ? due + 1_000_000 : Math.max(now, due);
        }
        double expected = GBIT / (PACKET * 8.0);
        assertEquals(expected, sent, expected * 0.01, "the slice's lateness is made up afterwards");
    }

    @Test
    void aNicLikePacerBurstsOnlyItsFewPacketsAfterAnIdleSpell() {
        Pacer p = new Pacer(GBIT);
        p.sent(PACKET, 0);
        int burst = 0;
        while (p.nextAvail() <= 50_000_000) {
            p.sent(PACKET, 50_000_000);
            burst++;
        }
        assertEquals(1 + Pacer.CREDIT_PACKETS, burst, "DCQCN's pacer: the packet due now and 4 packet times of credit");
    }
}
