package org.urdma.transport.engine;

import org.urdma.transport.wire.OpcodeTable;
import org.urdma.verbs.AsyncEventType;
import org.urdma.verbs.QpAttrMask;
import org.urdma.verbs.QpAttributes;
import org.urdma.verbs.QpState;
import org.urdma.verbs.QpTransitions;
import org.urdma.verbs.QpType;
import org.urdma.verbs.WcOpcode;
import org.urdma.verbs.WcStatus;
import org.urdma.verbs.WrOpcode;

/**
 * A QP's state changes on the engine thread: a modify checked and applied (connection parameters, RTR and RTS
 * starting the responder, requester and P-FEC), RESET, and ERR with every outstanding work request flushed.
 */
final class QpControl {
    /**
     * P-FEC protects whole transport sections (headers too), so a parity payload is up to 64 bytes longer than a data
     * payload: with FEC agreed both sides segment at path MTU - 64, and parity frames stay within the data frames' size.
     */
    static final int FEC_HEADROOM = 64;

    private final SoftQp qp;

    QpControl(SoftQp qp) {
        this.qp = qp;
    }

    void applyModify(QpAttributes a, int mask) {
        QpState cur = qp.state;
        QpState next = QpTransitions.validate(qp.type, cur, a, mask);
        qp.device.limits().checkModify(a, mask);
        if (next == QpState.RTR && cur == QpState.INIT && qp.recovery.selective() && qp.uethFlags == 0 && qp.type == QpType.RC) {
            // a SACK sender needs a receiver that places out of order and reports gaps: WAN mode on both sides
            throw new IllegalStateException("reliability: " + qp.recovery.name() + " needs WAN mode (per-packet RETH and SACK agreed with the peer); QP " + qp.qpNum() + " is in DC mode");
        }
        qp.attrs.apply(a, mask);
        qp.mtu = qp.type == QpType.UD ? Math.min(4096, qp.device.link().maxPayload()) : qp.attrs.pathMtu().bytes() - fecHeadroom();
        qp.destQpn = qp.attrs.destQpn();
        qp.qkey = qp.attrs.qkey();
        qp.accessFlags = qp.attrs.accessFlags();
        qp.ackTimeoutNanos = Timing.ackTimeoutNanos(qp.attrs.timeout());
        qp.retryCnt = qp.attrs.retryCnt();
        qp.rnrRetry = qp.attrs.rnrRetry();
        qp.minRnrTimer = qp.attrs.minRnrTimer();
        qp.maxRdAtomic = Math.max(1, qp.attrs.maxRdAtomic());
        qp.maxDestRdAtomic = Math.max(1, qp.attrs.maxDestRdAtomic());
        if ((mask & QpAttrMask.AV) != 0) {
            qp.route.set(qp.attrs.av().dmac(), qp.attrs.av().dgid() != null ? qp.attrs.av().dgid().toBytes() : new byte[16])
                    .trafficClass(qp.attrs.av().trafficClass());
        }
        if (next == cur && (mask & QpAttrMask.STATE) == 0) return;
        switch (next) {
            case RESET -> reset();
            case RTR -> {
                if (cur == QpState.INIT) {
                    qp.recovery.window(qp.window());
                    qp.responder.start(qp.attrs.rqPsn());
                    startFec(qp.attrs.rqPsn());
                }
            }
            case RTS -> {
                if (cur == QpState.RTR) {
                    qp.recovery.start(qp.attrs.sqPsn());
                    qp.requester.start(qp.attrs.sqPsn());
                }
            }
            case ERR -> {
                // an ACK the responder coalesced is owed for work the consumer has already seen complete (rxe sends
                // it before the completion), so it leaves before the QP stops sending
                if (cur == QpState.RTR || cur == QpState.RTS || cur == QpState.SQD) qp.responder.flushOwedAck(now());
                moveToError(false);
                return;
            }
            case SQD -> qp.drainedRaised = false;
            default -> { }
        }
        if (next != cur) qp.journal.qpState(now(), qp.qpNum(), cur, next);
        qp.state = next;
        qp.device.activate(qp);
    }

    private long now() {
        return qp.device.now();
    }

    private int fecHeadroom() {
        return (qp.uethFlags & OpcodeTable.UETH_FEC) != 0 ? FEC_HEADROOM : 0;
    }

    /** Longest transport section P-FEC protects: BTH, every URDMA and extended header a request carries, payload, pad. */
    private int fecSection() {
        return qp.mtu + FEC_HEADROOM;
    }

    private void startFec(int rqPsn) {
        if ((qp.uethFlags & OpcodeTable.UETH_FEC) == 0) {
            qp.fecTx = null;
            qp.fecRx = null;
            return;
        }
        int m = FecSender.initialM(qp.fecData);
        int r = FecSender.initialR(qp.fecData, qp.fecParity);
        qp.fecRx = new FecReceiver(fecSection(), rqPsn, m, r);
        qp.fecTx = new FecSender(qp, fecSection(), qp.fecData, qp.fecParity);
    }

    private void reset() {
        qp.timers.cancelAll();
        // discard every queued request without completions, as a RESET does
        qp.sq.retired.set(qp.sq.producer.get());
        if (qp.rq != null) qp.rq.consumer.set(qp.rq.producer.get());
        qp.requester.reset();
        qp.responder.start(0);
        qp.fecTx = null;
        qp.fecRx = null;
        qp.state = QpState.RESET;
    }

    /** {@code fatal}: the engine found the error (raises QP_FATAL); a modify to ERR does not. */
    void moveToError(boolean fatal) {
        if (qp.state == QpState.ERR) return;
        qp.journal.qpState(now(), qp.qpNum(), qp.state, QpState.ERR);
        qp.state = QpState.ERR;
        qp.timers.cancelAll();
        if (fatal) qp.device.raise(AsyncEventType.QP_FATAL, qp);
        flush();
        qp.device.activate(qp); // what is posted later is flushed when it comes
    }

    /** Completes every outstanding send and receive WQE with WR_FLUSH_ERR (ERR state). */
    int flush() {
        int n = 0;
        long p = qp.sq.producer.get();
        for (long i = qp.sq.retired.get(); i < p; i++) {
            int s = qp.sq.slot(i);
            long id = qp.sq.wrId[s];
            WcOpcode op = WrOpcode.of(qp.sq.opcode[s]).completion();
            qp.sq.retired.lazySet(i + 1);
            qp.sendCq.push(id, WcStatus.WR_FLUSH_ERR, op, 0, 0, 0, qp.qpNum(), 0, 0, false);
            n++;
        }
        qp.requester.afterFlush();
        qp.responder.flushTaken();
        if (qp.rq != null) {
            long rp = qp.rq.producer.get();
            for (long i = qp.rq.consumer.get(); i < rp; i++) {
                long id = qp.rq.wrId[(int) (i & qp.rq.mask)];
                qp.rq.consumer.lazySet(i + 1);
                qp.recvCq.push(id, WcStatus.WR_FLUSH_ERR, WcOpcode.RECV, 0, 0, 0, qp.qpNum(), 0, 0, false);
                n++;
            }
        }
        return n;
    }
}
