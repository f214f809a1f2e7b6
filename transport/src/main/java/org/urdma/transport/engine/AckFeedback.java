package org.urdma.transport.engine;

import org.urdma.transport.counters.Counter;
import org.urdma.transport.packet.RxPacket;
import org.urdma.transport.wire.Psn;
import org.urdma.transport.wire.SackEth;
import org.urdma.verbs.QpState;

/**
 * What a WAN responder's ACKs report beyond the cumulative PSN: the AETH-EXT's timestamps (round trip, one-way delays,
 * delivered bytes) for the rate control and loss recovery, and the SACK-ETH's loss rate and missing ranges.
 */
final class AckFeedback {
    private final SoftQp qp;
    /** The highest request PSN an AETH-EXT answered (what the receiver has seen), and where loss was last fed. */
    private int answeredHigh, lossFedAt;
    private final int[] sackStart = new int[SackEth.MAX_RANGES];
    private final int[] sackLength = new int[SackEth.MAX_RANGES];

    AckFeedback(SoftQp qp) {
        this.qp = qp;
    }

    void start(int psn) {
        answeredHigh = Psn.add(psn, -1);
        lossFedAt = answeredHigh;
    }

    /**
     * WAN mode: the receiver's loss rate (SACK-ETH loss byte, 1/4096 over its last 512 PSNs) goes to the rate control
     * and the FEC sizing once per such window of requests it answered, so each report counts once.
     */
    void onLossReport(int units, long now) {
        if (Psn.diff(answeredHigh, lossFedAt) < LossMeter.WINDOW) return;
        lossFedAt = answeredHigh;
        double fraction = LossMeter.fraction(units);
        qp.rate.onLossRate(fraction, now);
        if (qp.fecTx != null) qp.fecTx.onLossRate(fraction);
    }

    /**
     * WAN mode: an ACK's SACK-ETH goes to the loss recovery whole (it judges each missing PSN against what arrived);
     * ranges naming PSNs never sent are dropped and counted. Without timestamps no AETH-EXT names the newest PSN the
     * receiver accepted, so the PSN that ends the last range (the receiver has it, or one sent after it) stands in.
     */
    void onSack(RxPacket p, long now) {
        if (qp.state() == QpState.ERR) return;
        int n = 0;
        for (int i = 0; i < p.sackCount() && n < SackEth.MAX_RANGES; i++) {
            int len = p.sackRangeLength(i);
            if (len == 0) continue;
            sackStart[n] = p.sackRangeStart(i);
            sackLength[n] = len;
            n++;
        }
        qp.counters.add(Counter.SACK_RANGES_RCVD, n);
        if (!p.hasAethExt() && n > 0) qp.recovery.onDelivered(Psn.add(sackStart[n - 1], sackLength[n - 1]), now);
        if (qp.recovery.onSack(p.sackCumulativePsn(), sackStart, sackLength, n, qp.requester, now) > 0) {
            qp.drop(Counter.DROP_SACK_UNSENT, p.psn(), now);
        }
    }

    /**
     * AETH-EXT: the responder's one-way delay of our last timestamped packet (Ts) plus ours of its ACK (now - T3) is a
     * round trip without the responder's hold time; clock offsets between the hosts cancel in the sum.
     */
    void onTimestamps(RxPacket p, long now) {
        int forward = p.aethExtTs();
        int reverse = (int) now - p.aethExtT3();
        int rtt = forward + reverse;
        qp.requester.reverseOwd = reverse;
        // delivered bytes for a delivery-rate policy (RRCC): how far the newest request the receiver answers moved,
        // in MTU payloads (losses count as delivered: FEC and SACK repair them; a resend answered adds nothing)
        long acked = 0;
        int answered = p.aethExtPsn();
        qp.recovery.onDelivered(answered, now);
        if (Psn.after(answered, answeredHigh) && Psn.before(answered, qp.requester.firstUnassignedPsn)) {
            acked = (long) Psn.diff(answered, answeredHigh) * qp.mtu;
            answeredHigh = answered;
        }
        if (rtt < 0) { // a stale or garbled echo
            qp.rate.onAck(acked, -1, now);
            return;
        }
        qp.rate.onAck(acked, rtt, now);
        qp.rate.onOneWayDelay(forward, reverse, now);
        qp.recovery.onRtt(rtt, now);
    }
}
