package org.urdma.transport.engine;

import org.urdma.transport.counters.Counter;
import org.urdma.transport.packet.RxPacket;
import org.urdma.transport.packet.TxPacket;
import org.urdma.transport.rate.CongestionSignal;
import org.urdma.transport.wire.Opcode;
import org.urdma.transport.wire.OpcodeTable;
import org.urdma.verbs.QpState;
import org.urdma.verbs.QpType;

/**
 * What a QP does with an arrival: the state and source checks (rxe's check_addr), then responses to the completer,
 * P-FEC parity to the decoder, requests to the responder (a CE mark to the CNP sender first), and a CNP to the rate
 * control. Engine thread only.
 */
final class QpReceive {
    private final SoftQp qp;

    QpReceive(SoftQp qp) {
        this.qp = qp;
    }

    void onPacket(RxPacket p, long now) {
        QpState s = qp.state;
        if (s == QpState.RESET || s == QpState.INIT || s == QpState.ERR) {
            qp.drop(Counter.DROP_WRONG_STATE, p.psn(), now);
            return;
        }
        if (qp.type != QpType.UD && !p.sourceIs(qp.route)) { // rxe check_addr: RC/UC take packets from their peer only
            qp.drop(Counter.DROP_FOREIGN_SOURCE, p.psn(), now);
            return;
        }
        if (((p.opcode() & 0xE0) == Opcode.TRANSPORT_RC && OpcodeTable.has(p.opcode(), OpcodeTable.ACK))) {
            if (qp.type == QpType.RC && s != QpState.RTR) {
                received(p);
                qp.completer.onResponse(p, now);
                qp.telemetry.onResponse(p, now);
            } else {
                qp.drop(Counter.DROP_BAD_OPCODE, p.psn(), now);
            }
        } else if (p.opcode() == Opcode.URDMA_FEC_PARITY) {
            if (qp.fecRx == null) {
                qp.drop(Counter.DROP_BAD_OPCODE, 0, now);
                return;
            }
            if (!qp.responder.groupInWindow(p.fecBasePsn())) { // checked first: a forged base far ahead costs nothing
                qp.drop(Counter.DROP_FEC_OUT_OF_WINDOW, p.fecBasePsn(), now);
                return;
            }
            received(p);
            qp.counters.increment(Counter.FEC_PARITY_RCVD);
            RxPacket rebuilt = qp.fecRx.onParity(p);
            if (rebuilt != null) repaired(rebuilt, p.fecBasePsn(), now);
        } else {
            received(p);
            if (p.ecn() == SoftQp.ECN_CE) qp.cnp.onCe(p, now);
            // the decoder reads the packet before the responder acts on it; a packet it lets us rebuild goes after;
            // only inside the placement window: the responder drops the rest, and the decoder must not open groups for them
            RxPacket rebuilt = qp.fecRx != null && qp.type == QpType.RC && qp.responder.inWindow(p.psn()) ? qp.fecRx.onData(p) : null;
            qp.telemetry.onRequest(p);
            qp.responder.onRequest(p, now);
            if (rebuilt != null && qp.state != QpState.ERR) repaired(rebuilt, p.psn(), now);
        }
    }

    /** A lost request rebuilt from P-FEC parity: counted, journalled and placed as if it had arrived. */
    private void repaired(RxPacket rebuilt, int byPsn, long now) {
        qp.counters.increment(Counter.FEC_REPAIRED);
        qp.journal.fecRepaired(now, qp.qpNum(), rebuilt.psn(), byPsn);
        qp.responder.onRequest(rebuilt, now);
    }

    /** A CNP for this QP (past the device's CNP merge): its rate control hears it. */
    void onCnp(long now) {
        QpState s = qp.state;
        if (s == QpState.RESET || s == QpState.INIT || s == QpState.ERR) {
            qp.drop(Counter.DROP_WRONG_STATE, 0, now);
            return;
        }
        qp.counters.increment(Counter.CNP_HANDLED);
        qp.journal.cnpReceived(now, qp.qpNum(), 0);
        qp.rate.onCongestion(CongestionSignal.CNP, now);
    }

    private void received(RxPacket p) {
        qp.counters.increment(Counter.RCVD_PKTS);
        qp.counters.add(Counter.RCVD_BYTES, TxPacket.sectionLength(p.opcode(), p.payloadLength()));
    }
}
