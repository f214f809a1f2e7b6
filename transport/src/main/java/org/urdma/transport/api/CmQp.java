package org.urdma.transport.api;

import org.urdma.transport.gsi.CmId;
import org.urdma.verbs.AddressHandleAttributes;
import org.urdma.verbs.Gid;
import org.urdma.verbs.PathMtu;
import org.urdma.verbs.QpAttrMask;
import org.urdma.verbs.QpAttributes;
import org.urdma.verbs.QpState;
import org.urdma.verbs.QpType;
import org.urdma.verbs.QueuePair;

/**
 * A verbs QP moved by the CM: RTR and RTS from what the REQ/REP carried, as rdma_cm's cma_modify_qp_rtr/rts do. A
 * side's Starting PSN in its REQ or REP is the PSN it expects to receive (the kernel's cm.c: rq_psn from our own
 * message, sq_psn from the peer's), so the peer sends from it.
 */
final class CmQp implements CmId.Qp {
    private final QueuePair qp;

    CmQp(QueuePair qp) {
        this.qp = qp;
    }

    @Override
    public int qpn() {
        return qp.qpNum();
    }

    static PathMtu mtu(int code) {
        for (PathMtu m : PathMtu.values()) if (m.bytes() == (128 << code)) return m;
        throw new IllegalArgumentException("path MTU: code " + code + " is not 1..5");
    }

    static int code(PathMtu m) {
        return Integer.numberOfTrailingZeros(m.bytes()) - 7;
    }

    @Override
    public void toRtr(CmId id) {
        QpAttributes a = new QpAttributes().state(QpState.RTR)
                .av(new AddressHandleAttributes().dgid(Gid.of(id.remoteGid())).dmac(id.peer().mac()).hopLimit(64))
                .pathMtu(mtu(id.mtuCode())).destQpn(id.remoteQpn()).rqPsn(id.localPsn());
        int mask = QpAttrMask.STATE | QpAttrMask.AV | QpAttrMask.PATH_MTU | QpAttrMask.DEST_QPN | QpAttrMask.RQ_PSN;
        if (qp.type() == QpType.RC) {
            a.maxDestRdAtomic(Math.max(1, id.responderResources())).minRnrTimer(12);
            mask |= QpAttrMask.MAX_DEST_RD_ATOMIC | QpAttrMask.MIN_RNR_TIMER;
        }
        qp.modify(a, mask);
    }

    @Override
    public void toRts(CmId id) {
        QpAttributes a = new QpAttributes().state(QpState.RTS).sqPsn(id.remotePsn());
        int mask = QpAttrMask.STATE | QpAttrMask.SQ_PSN;
        if (qp.type() == QpType.RC) {
            a.timeout(Math.max(id.ackTimeout(), 14)).retryCnt(id.retryCount()).rnrRetry(id.rnrRetryCount())
                    .maxRdAtomic(Math.max(1, id.initiatorDepth()));
            mask |= QpAttrMask.TIMEOUT | QpAttrMask.RETRY_CNT | QpAttrMask.RNR_RETRY | QpAttrMask.MAX_QP_RD_ATOMIC;
        }
        qp.modify(a, mask);
    }

    @Override
    public void toError(CmId id) {
        if (qp.state() != QpState.ERR && qp.state() != QpState.RESET) qp.modify(new QpAttributes().state(QpState.ERR), QpAttrMask.STATE);
    }
}
