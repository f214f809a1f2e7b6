package org.urdma.transport.recovery;

import static org.junit.jupiter.api.Assertions.*;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The decisions of each policy, driven by hand: what it asks the requester to resend, what a gap means. */
class LossRecoveryTest {
    /** A requester whose message (WQE) boundaries are every 100 PSNs; records the rewinds asked for. */
    static final class Recorder implements LossRecovery.Retransmitter {
        final List<Integer> rewinds = new ArrayList<>();

        @Override
        public void rewind(int psn) {
            rewinds.add(psn);
        }

        @Override
        public boolean resend(int psn, long now) {
            throw new AssertionError("go-back policies never resend selectively");
        }

        @Override
        public int messageFirstPsn(int psn) {
            return psn - psn % 100;
        }
    }

    @Test
    void goBackNResendsFromTheLostPacket() {
        LossRecovery gbn = LossRecovery.goBackN().create();
        Recorder r = new Recorder();
        gbn.onLoss(257, LossCause.NAK, r, 0);
        gbn.onLoss(300, LossCause.TIMEOUT, r, 0);
        assertEquals(List.of(257, 300), r.rewinds);
        assertEquals(257, gbn.expectedAfterGap(257, 200), "the responder asks for the missing packet");
        assertFalse(gbn.discardsPartialMessage());
        assertTrue(gbn.ackReqInterval() > 0);
    }

    @Test
    void goBackZeroRestartsTheWholeMessage() {
        LossRecovery gb0 = LossRecovery.goBack0().create();
        Recorder r = new Recorder();
        gb0.onLoss(257, LossCause.NAK, r, 0);
        assertEquals(List.of(200), r.rewinds);
        assertEquals(200, gb0.expectedAfterGap(257, 200), "the responder asks for the message again");
        assertTrue(gb0.discardsPartialMessage());
    }

    @Test
    void factoriesAreFoundByNameAndAnUnknownNameIsRefused() {
        assertEquals("go-back-N", LossRecovery.named("go-back-n").name());
        assertEquals("go-back-N", LossRecovery.named("gbn").name());
        assertEquals("go-back-0", LossRecovery.named("go_back_0").name());
        assertEquals("sack", LossRecovery.named("sack").name());
        assertEquals("sack:8/50", LossRecovery.named("sack:8/50").name());
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> LossRecovery.named("selective"));
        assertTrue(e.getMessage().startsWith("reliability: unknown 'selective'"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> LossRecovery.named("sack:8"));
        assertTrue(e.getMessage().startsWith("reliability: sack:N/MICROS"), e.getMessage());
    }
}
