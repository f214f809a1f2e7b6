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
    void aRepeatedSackWithinAJitteryRoundTripDoesNotResendAgain() {
        LossRecovery sack = LossRecovery.sack().create();
        List<Integer> resent = new ArrayList<>();
        LossRecovery.Retransmitter r = selective(sack, resent);
        sack.start(100);
        for (int psn = 100; psn < 120; psn++) sack.onSent(psn, 1, (psn - 100) * 100_000L);
        // a queue that fills and drains: RTT samples between 0.1 and 1 ms (mean 0.55 ms)
        long t = 2_000_000;
        for (int i = 0; i < 64; i++) sack.onRtt(i % 2 == 0 ? 100_000 : 1_000_000, t);
        int[] lost = {105};
        int[] one = {1};
        // 105 is missing and 119, sent 1.4 ms after it, has arrived: lost
        sack.onDelivered(119, t);
        sack.onSack(105, lost, one, 1, r, t);
        sack.retransmit(r, t);
        // the receiver's next SACK still lists 105: it left before the resend arrived, a round trip of 1 ms ago
        sack.onDelivered(119, t + 900_000);
        sack.onSack(105, lost, one, 1, r, t + 900_000);
        sack.retransmit(r, t + 900_000);
        assertEquals(List.of(105), resent, "one resend per round trip, even a slow one");
        // a SACK that still lists it once a packet sent 1 ms after the resend has arrived: the resend was lost too
        sack.onSent(120, 1, t + 1_000_000);
        sack.onDelivered(120, t + 2_500_000);
        sack.onSack(105, lost, one, 1, r, t + 2_500_000);
        sack.retransmit(r, t + 2_500_000);
        assertEquals(List.of(105, 105), resent);
    }

    @Test
    void aSackThatListsLaterGapsFirstDoesNotHideTheEarlierOnes() {
        LossRecovery sack = LossRecovery.sack().create();
        List<Integer> resent = new ArrayList<>();
        LossRecovery.Retransmitter r = selective(sack, resent);
        sack.start(16_777_204); // the QP's first PSN, just before the 24-bit wrap
        for (int i = 0; i < 500; i++) sack.onSent((16_777_204 + i) & 0xFFFFFF, 1, i * 100_000L);
        // the full report listing PSNs 2..5 (its first 32 ranges) was lost; its continuation, listing PSN 474, came
        sack.onDelivered(487, 50_500_000);
        sack.onSack(16_777_204, new int[] {474}, new int[] {1}, 1, r, 50_500_000);
        sack.retransmit(r, 50_500_000);
        // a timeout then resends the oldest unacknowledged PSN, which lies before the first one the scoreboard heard of
        sack.onLoss(16_777_204, LossCause.TIMEOUT, r, 70_000_000);
        sack.retransmit(r, 70_000_000);
        assertEquals(List.of(474, 16_777_204), resent);
    }

    /** A requester whose resends {@code sack} hears of, as the engine's does. */
    private static LossRecovery.Retransmitter selective(LossRecovery sack, List<Integer> resent) {
        return new LossRecovery.Retransmitter() {
            @Override
            public void rewind(int psn) {
                throw new AssertionError("sack resends selectively");
            }

            @Override
            public boolean resend(int psn, long now) {
                resent.add(psn);
                sack.onSent(psn, 1, now);
                return true;
            }

            @Override
            public int messageFirstPsn(int psn) {
                return psn;
            }
        };
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
