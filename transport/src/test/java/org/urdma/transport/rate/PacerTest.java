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
        // ppoll's wake-up lands 15 us after the deadline
        assertEquals(PER_SECOND, packetsInASecond((sent, due) -> due + 15_000), PER_SECOND * 0.01, "the lateness is not lost per packet");
    }

    @Test
    void aQpIdleForLongBurstsOnlyItsCreditThenKeepsTheRate() {
        Pacer p = new Pacer(GBIT, Pacer.CREDIT_BYTES);
        assertEquals(1 + Pacer.CREDIT_BYTES / PACKET, burstAfterIdle(p), "the packet due now and 256 KiB of credit (2 ms here), not 50 ms of it");
        assertEquals(RESUME + 32_768, p.nextAvail(), "then one packet per 32.768 us");
        assertTrue(p.nextAvail() > RESUME);
    }

    @Test
    void anEngineDescheduledForAMillisecondLosesNoRate() {
        // a thread sharing a core loses it for a scheduler slice now and then: 1 ms every 10 ms here
        assertEquals(PER_SECOND, packetsInASecond((sent, due) -> sent % 300 == 0 ? due + 1_000_000 : due), PER_SECOND * 0.01,
            "the slice's lateness is made up afterwards");
    }

    @Test
    void anEngineThatDidNotRunMakesUpItsLatenessUpToTheStallCreditThenKeepsTheRate() {
        // the QP had packets due from 32 us on, but the engine's thread was descheduled until RESUME (50 ms)
        Pacer p = new Pacer(GBIT, Pacer.CREDIT_BYTES);
        p.sent(PACKET, 0);
        p.engineLate(RESUME, 20_000_000);
        int burst = 0;
        while (p.nextAvail() <= RESUME) {
            p.sent(PACKET, RESUME);
            burst++;
        }
        assertEquals(20_000_000 / 32_768, burst, 1, "the 20 ms of packets the stall held back leave now, not 2 ms of them");
        p.sent(PACKET, RESUME + 10_000_000);
        int later = 0;
        while (p.nextAvail() <= RESUME + 10_000_000) {
            p.sent(PACKET, RESUME + 10_000_000);
            later++;
        }
        assertEquals(Pacer.CREDIT_BYTES / PACKET, later, 1, "once caught up, a later idle spell keeps only the usual credit");
    }

    @Test
    void aNicLikePacerBurstsOnlyItsFewPacketsAfterAnIdleSpell() {
        assertEquals(1 + Pacer.CREDIT_PACKETS, burstAfterIdle(new Pacer(GBIT)), "DCQCN's pacer: the packet due now and 4 packet times of credit");
    }

    @Test
    void aQpTheLinkHeldThroughAPauseBurstsOnlyAFewPacketsAtXon() {
        // PFC paused the priority 1 ms after the last packet; the engine tried each pass and the link refused it
        Pacer p = new Pacer(GBIT, Pacer.CREDIT_BYTES);
        p.sent(PACKET, 0);
        for (long t = 40_000; t < RESUME; t += 1_000_000) p.held(t);
        p.held(RESUME - 1);
        int burst = 0;
        while (p.nextAvail() <= RESUME) {
            p.sent(PACKET, RESUME);
            burst++;
        }
        assertTrue(burst <= 1 + Pacer.CREDIT_PACKETS, "the pause is not kept as 256 KiB of credit: " + burst + " packets at XON");
        assertEquals(PER_SECOND, packetsInASecond((sent, due) -> sent % 300 == 0 ? due + 1_000_000 : due), PER_SECOND * 0.01,
            "an engine's own lateness is still made up");
    }

    private static final double PER_SECOND = GBIT / (PACKET * 8.0);
    private static final long RESUME = 50_000_000;

    /** Packets an RRCC pacer lets out in a second when the engine next runs at {@code wake(sent, due)}. */
    private static long packetsInASecond(java.util.function.LongBinaryOperator wake) {
        Pacer p = new Pacer(GBIT, Pacer.CREDIT_BYTES);
        long now = 0;
        long sent = 0;
        while (now < 1_000_000_000L) {
            p.sent(PACKET, now);
            sent++;
            now = Math.max(now, wake.applyAsLong(sent, p.nextAvail()));
        }
        return sent;
    }

    /** Packets {@code p} lets out at once after one packet at 0 and nothing until {@link #RESUME}. */
    private static int burstAfterIdle(Pacer p) {
        p.sent(PACKET, 0);
        int burst = 0;
        while (p.nextAvail() <= RESUME) {
            p.sent(PACKET, RESUME);
            burst++;
        }
        return burst;
    }
}
