package org.urdma.transport.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

class RttProbeTest {
    @Test
    void theFirstAckCoveringTheTimedPacketEndsTheSampleAndTheNextNewPacketStartsOne() {
        RttProbe p = new RttProbe();
        p.sent(10, 1_000);
        p.sent(11, 2_000); // a sample is running: not timed
        assertEquals(-1, p.acked(9, 5_000), "an ACK short of the timed PSN");
        assertEquals(7_000, p.acked(11, 8_000), "a cumulative ACK past it ends the sample");
        assertEquals(-1, p.acked(11, 9_000), "one sample per timed packet");
        p.sent(12, 9_000);
        assertEquals(3_000, p.acked(12, 12_000));
    }

    @Test
    void aResendCancelsTheSampleAsKarnSays() {
        RttProbe p = new RttProbe();
        p.sent(0xFFFFFF, 0); // PSNs wrap at 2^24
        p.resent();
        assertEquals(-1, p.acked(0, 50_000));
        p.sent(0xFFFFFF, 60_000);
        assertEquals(4_000, p.acked(1, 64_000), "across the PSN wrap");
    }
}
