package org.urdma.transport.recovery;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * TC-SACK's time-based loss detection (RACK, RFC 8985) over a modelled path: a sender that sends one packet per µs, a
 * receiver that reports as the WAN responder does (cumulative PSN, the missing runs up to the highest PSN it has, the
 * newest PSN it accepted), and ACKs that take the one-way delay back. A PSN a SACK lists is resent only once a PSN
 * sent enough later has arrived, so reordering and forged reports resend nothing and a real loss is resent within
 * about a round trip and the reorder window.
 */
class SackLossDetectionTest {
    static final long US = 1_000;
    static final int PACKETS = 1000;
    static final long ONE_WAY = 50 * US;
    static final long RTT = 2 * ONE_WAY;
    static final long ACK_EVERY = 10 * US;

    /** Sender, path and receiver, stepped 1 µs at a time. */
    static final class Path {
        final Sack sack = (Sack) LossRecovery.sack().create();
        /** Per PSN: when its earliest copy reaches the receiver (MAX: not yet sent, or every copy lost). */
        final long[] arrival = new long[PACKETS];
        final long[] firstSent = new long[PACKETS];
        /** Per PSN: copies the path loses, and extra delay of its first copy (reordering). */
        final int[] lose = new int[PACKETS];
        final long[] extra = new long[PACKETS];
        final List<long[]> resent = new ArrayList<>(); // (time, PSN)
        /** A forged request the receiver takes as a READ ahead: it reports the gap up to it from {@code forgedAt} on. */
        int forgedPsn = -1;
        long forgedAt = Long.MAX_VALUE;
        int sackUnsent;
        int next;
        long now;
        final int[] start = new int[32];
        final int[] length = new int[32];
        final LossRecovery.Retransmitter requester = new LossRecovery.Retransmitter() {
            @Override
            public void rewind(int psn) {
                throw new AssertionError("sack resends selectively");
            }

            @Override
            public boolean resend(int psn, long at) {
                resent.add(new long[] {at, psn});
                transmit(psn, at);
                return true;
            }

            @Override
            public int messageFirstPsn(int psn) {
                return psn;
            }

            @Override
            public int firstUnsentPsn() {
                return next;
            }
        };

        Path() {
            Arrays.fill(arrival, Long.MAX_VALUE);
            sack.start(0);
        }

        void transmit(int psn, long at) {
            if (lose[psn] > 0) {
                lose[psn]--;
            } else {
                long delay = ONE_WAY + (at == firstSent[psn] ? extra[psn] : 0);
                arrival[psn] = Math.min(arrival[psn], at + delay);
            }
            sack.onSent(psn, 1, at);
        }

        /** Runs until {@code end}: a packet per µs, an ACK every {@link #ACK_EVERY}, a requester pass per µs. */
        void run(long end) {
            for (; now <= end; now += US) {
                if (now % ACK_EVERY == 0 && now >= ONE_WAY) ack(now - ONE_WAY);
                sack.retransmit(requester, now);
                if (next < PACKETS) {
                    firstSent[next] = now;
                    transmit(next++, now);
                }
            }
        }

        /** The ACK the receiver sent at {@code at}, as it arrives now. */
        private void ack(long at) {
            int cum = 0;
            while (cum < PACKETS && arrival[cum] <= at) cum++;
            int high = cum;
            int newest = -1;
            for (int p = 0; p < PACKETS; p++) {
                if (arrival[p] > at) continue;
                high = Math.max(high, p + 1);
                if (newest < 0 || arrival[p] >= arrival[newest]) newest = p;
            }
            if (forgedAt <= at) high = Math.max(high, forgedPsn + 1);
            int n = 0;
            for (int p = cum; p < high && n < start.length; ) {
                if (p < PACKETS && arrival[p] <= at) {
                    p++;
                    continue;
                }
                int q = p;
                while (q < high && q - p < 255 && (q >= PACKETS || arrival[q] > at)) q++;
                start[n] = p;
                length[n++] = q - p;
                p = q;
            }
            sack.onRtt(RTT, now);
            if (newest >= 0) sack.onDelivered(newest, now);
            sack.onAcknowledged(cum, now);
            if (sack.onSack(cum, start, length, n, requester, now) > 0) sackUnsent++;
        }
    }

    @Test
    void aSackListingTheGapBelowAForgedPsnFarAheadResendsNothingInFlight() {
        // at 300 us the receiver has PSNs up to ~250; a forged request at PSN 5000 (never sent) makes it list every
        // PSN from its expected one to 5000 as missing: those sent are all still on their way
        Path path = forgedAt300Us(5000);
        assertEquals(List.of(), resentPsns(path), "nothing in flight is resent");
        assertTrue(path.sackUnsent > 0, "the ranges naming PSNs never sent were dropped and counted");
        assertTrue(Arrays.stream(path.arrival).allMatch(a -> a != Long.MAX_VALUE), "every packet arrived");
    }

    @Test
    void aForgedPsnAlreadySentButNotArrivedResendsNothingEither() {
        // PSN 280 was sent at 280 us and is on its way; the report lists 251..280 as missing at 300 us
        Path path = forgedAt300Us(280);
        assertEquals(List.of(), resentPsns(path));
        assertEquals(0, path.sackUnsent);
    }

    /** A transfer during which the receiver, from 300 us on, takes a forged request at {@code psn} as a READ ahead. */
    private static Path forgedAt300Us(int psn) {
        Path path = new Path();
        path.forgedPsn = psn;
        path.forgedAt = 300 * US;
        path.run(5_000 * US);
        return path;
    }

    @Test
    void aRealLossIsResentOnceWithinARoundTripAndTheReorderWindow() {
        Path path = new Path();
        path.lose[500] = 1;
        path.lose[501] = 1;
        path.run(5_000 * US);
        assertEquals(List.of(500, 501), resentPsns(path));
        long window = path.sack.reorderWindow();
        assertEquals(Sack.MIN_REORDER_NANOS, window, "a quarter of a 100 us RTT is below the least window");
        for (long[] r : path.resent) {
            long after = r[0] - path.firstSent[(int) r[1]];
            assertTrue(after > window && after <= RTT + window + ACK_EVERY + US, "PSN " + r[1] + " resent " + after / US
                    + " us after it was sent (RTT " + RTT / US + " us, reorder window " + window / US + " us)");
        }
        assertTrue(Arrays.stream(path.arrival).allMatch(a -> a != Long.MAX_VALUE), "every packet arrived");
    }

    @Test
    void aResendThatIsLostTooIsResentOnceAPacketSentAfterItArrives() {
        Path path = new Path();
        path.lose[400] = 2;
        path.run(5_000 * US);
        assertEquals(List.of(400, 400), resentPsns(path), "one resend per loss, none for the repeated reports between");
        long first = path.resent.get(0)[0];
        long second = path.resent.get(1)[0];
        assertTrue(second - first > path.sack.reorderWindow() && second - first <= RTT + path.sack.reorderWindow() + ACK_EVERY + US,
                "the second resend " + (second - first) / US + " us after the first");
    }

    @Test
    void reorderingWithinTheWindowResendsNothing() {
        Path path = new Path();
        // every 50th packet is overtaken by those sent up to 30 us after it
        for (int p = 50; p < PACKETS; p += 50) path.extra[p] = 30 * US;
        path.run(5_000 * US);
        assertEquals(List.of(), resentPsns(path));
    }

    @Test
    void reorderingBeyondTheWindowIsTakenForLoss() {
        Path path = new Path();
        path.extra[300] = 3 * Sack.MIN_REORDER_NANOS; // the check above is not blind: this one is resent
        path.run(5_000 * US);
        assertEquals(List.of(300), resentPsns(path));
    }

    @Test
    void aTailLossWithNothingSentAfterItWaitsForTheTimeoutsProbe() {
        Path path = new Path();
        path.lose[PACKETS - 1] = 1;
        path.run(5_000 * US);
        assertEquals(List.of(), resentPsns(path), "no report can show the last packet missing");
        path.sack.onLoss(PACKETS - 1, LossCause.TIMEOUT, path.requester, path.now);
        path.run(path.now + 1_000 * US);
        assertEquals(List.of(PACKETS - 1), resentPsns(path));
    }

    private static List<Integer> resentPsns(Path path) {
        List<Integer> out = new ArrayList<>();
        for (long[] r : path.resent) out.add((int) r[1]);
        return out;
    }
}
