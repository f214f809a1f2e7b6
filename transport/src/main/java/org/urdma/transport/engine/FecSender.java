package org.urdma.transport.engine;

import java.util.Arrays;
import org.urdma.transport.counters.Counter;
import org.urdma.transport.fec.FecEncoder;
import org.urdma.transport.fec.FecSizing;
import org.urdma.transport.packet.TxPacket;
import org.urdma.transport.wire.Opcode;
import org.urdma.transport.wire.Psn;

/**
 * P-FEC on the requester (docs/WAN.md): every request packet sent for the first time is XORed into its group's stripe
 * — its whole transport section (BTH, URDMA and extended headers, payload, pad), so a rebuilt packet is the packet —
 * and when a group's m-th packet has left, its r parity packets (opcode 0xC1, FEC-ETH, no PSN) follow. Parity the link
 * cannot take yet waits, and holds new packets back ({@link #flush}) so the next group cannot overwrite it. A PSN
 * jump (a READ request takes one packet for many PSNs) starts a new group there. With adaptive sizing the receiver's
 * loss reports pick m and r ({@link FecSizing}); a new geometry applies from the next group. Engine thread only.
 */
final class FecSender {
    private final SoftQp qp;
    private final FecEncoder encoder;
    /** Adaptive group size; null when M,R were agreed. */
    private final FecSizing sizing;
    private int m;
    private int r;
    /** Next parity of the completed group to send, and how many it has (0: none waiting; the encoder's r may be the next group's). */
    private int nextParity;
    private int parityCount;
    /**
     * Per stripe of the group: its longest transport section as a real link carries it (what its parity takes on the
     * wire). It is the encoder's parity length unless payloads are described (a simulated world), where a section holds
     * a description of its bytes.
     */
    private final int[] wireLength;

    FecSender(SoftQp qp, int maxSection, int m, int r) {
        this.qp = qp;
        this.sizing = m == 0 ? FecSizing.defaults() : null;
        this.m = sizing != null ? sizing.m() : m;
        this.r = sizing != null ? sizing.r() : r;
        this.encoder = new FecEncoder(maxSection, sizing != null ? 32 : r);
        this.wireLength = new int[sizing != null ? 32 : r];
    }

    /** The geometry the first group uses (the receiver expects it from its first PSN). */
    static int initialM(int m) {
        return m == 0 ? FecSizing.defaults().m() : m;
    }

    static int initialR(int m, int r) {
        return m == 0 ? FecSizing.defaults().r() : r;
    }

    /** A request packet written into {@code t}, about to be sent for the first time with PSN {@code psn}. */
    void onData(TxPacket t, int psn) {
        int end = t.finish(); // pad and PadCnt now, so the protected BTH is the one that leaves
        if (!encoder.open() || psn != encoder.nextPsn()) {
            parityCount = 0; // (the requester flushes parity before new packets; were any left, the new group overwrites them)
            encoder.start(psn, m, r);
            Arrays.fill(wireLength, 0);
        }
        int section = end - t.transportOffset();
        int j = Psn.diff(psn, encoder.basePsn()) % encoder.r();
        wireLength[j] = Math.max(wireLength[j], section + t.payloadLength() - t.payloadBytes());
        if (encoder.add(psn, t.buffer(), t.transportOffset(), section)) {
            nextParity = 0;
            parityCount = encoder.r();
        }
    }

    /** Sends the completed group's parity packets; false while the link holds some back. */
    boolean flush(long now) {
        while (nextParity < parityCount) {
            int j = nextParity;
            int len = encoder.parityLength(j);
            TxPacket t = qp.device.claim(Opcode.URDMA_FEC_PARITY, len, qp.route, now);
            if (t == null) {
                qp.rate.onLinkHeld(now); // the QP waits behind this parity: a pause must not turn into pacing credit
                return false;
            }
            t.start(Opcode.URDMA_FEC_PARITY, qp.destQpn, 0, false, false)
                    .fecEth(encoder.basePsn(), encoder.m(), encoder.r(), j, encoder.lengthXor(j))
                    .payload(encoder.parity(j), 0, len).payloadStandsFor(wireLength[j]);
            qp.commit(t, qp.route, now);
            qp.counters.increment(Counter.FEC_PARITY_SENT);
            qp.rate.onSent(wireLength[j], now); // parity takes the bottleneck's bytes too
            nextParity++;
        }
        parityCount = 0;
        return true;
    }

    /** The receiver's loss rate (fraction): with adaptive sizing, the next group may take another m and r. */
    void onLossRate(double fraction) {
        if (sizing != null && sizing.onLossRate(fraction)) {
            m = sizing.m();
            r = sizing.r();
        }
    }

    int m() {
        return m;
    }

    int r() {
        return r;
    }
}
