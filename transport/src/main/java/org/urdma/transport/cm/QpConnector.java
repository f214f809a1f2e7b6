package org.urdma.transport.cm;

import org.urdma.transport.driver.MemoryFabric;
import org.urdma.transport.engine.SoftQp;
import org.urdma.transport.rate.RateControl;
import org.urdma.transport.rate.Rrcc;
import org.urdma.transport.recovery.LossRecovery;
import org.urdma.transport.wire.OpcodeTable;
import org.urdma.verbs.AddressHandleAttributes;
import org.urdma.verbs.PathMtu;
import org.urdma.verbs.QpAttrMask;
import org.urdma.verbs.QpAttributes;
import org.urdma.verbs.QpState;
import org.urdma.verbs.QpType;
import org.urdma.verbs.QueuePair;

/** RESET → INIT → RTR → RTS from an exchanged pair of {@link QpEndpoint}s, as perftest's ctx_connect does. */
public final class QpConnector {
    private QpConnector() {
    }

    /** INIT with the access flags (RC/UC) or Q_Key (UD). */
    public static void toInit(QueuePair qp, MemoryFabric.Connection c, int qkey) {
        QpAttributes a = new QpAttributes().state(QpState.INIT).pkeyIndex(0).port(1);
        int mask = QpAttrMask.STATE | QpAttrMask.PKEY_INDEX | QpAttrMask.PORT;
        if (qp.type() == QpType.UD) {
            a.qkey(qkey);
            mask |= QpAttrMask.QKEY;
        } else {
            a.accessFlags(c.access());
            mask |= QpAttrMask.ACCESS_FLAGS;
        }
        qp.modify(a, mask);
    }

    /**
     * RTR then RTS towards {@code remote} at {@code remoteMac}; the path MTU is the smaller of both sides' and
     * {@code c.mtu()}; the READ/atomic depths are limited by what the peer accepts.
     */
    public static void toRts(QueuePair qp, QpEndpoint local, QpEndpoint remote, byte[] remoteMac, MemoryFabric.Connection c) {
        QpType t = qp.type();
        PathMtu mtu = min(min(local.mtu(), remote.mtu()), c.mtu());
        WanOffer agreed = local.wan().agree(remote.wan());
        if (agreed.on()) wan(qp, agreed);
        QpAttributes a = new QpAttributes().state(QpState.RTR);
        int mask = QpAttrMask.STATE;
        if (t != QpType.UD) {
            a.av(new AddressHandleAttributes().dgid(remote.gid()).dmac(remoteMac)).pathMtu(mtu).destQpn(remote.qpn())
                    .rqPsn(remote.psn());
            mask |= QpAttrMask.AV | QpAttrMask.PATH_MTU | QpAttrMask.DEST_QPN | QpAttrMask.RQ_PSN;
            if (t == QpType.RC) {
                a.maxDestRdAtomic(Math.max(1, Math.min(c.rdAtomic(), local.outReads()))).minRnrTimer(c.minRnrTimer());
                mask |= QpAttrMask.MAX_DEST_RD_ATOMIC | QpAttrMask.MIN_RNR_TIMER;
            }
        } else {
            a.pathMtu(mtu); // informative only: IBTA's UD INIT -> RTR takes no PATH_MTU in the mask (as MemoryFabric)
        }
        qp.modify(a, mask);
        a = new QpAttributes().state(QpState.RTS).sqPsn(local.psn());
        mask = QpAttrMask.STATE | QpAttrMask.SQ_PSN;
        if (t == QpType.RC) {
            a.timeout(c.timeout()).retryCnt(c.retryCnt()).rnrRetry(c.rnrRetry())
                    .maxRdAtomic(Math.max(1, Math.min(c.rdAtomic(), remote.outReads())));
            mask |= QpAttrMask.TIMEOUT | QpAttrMask.RETRY_CNT | QpAttrMask.RNR_RETRY | QpAttrMask.MAX_QP_RD_ATOMIC;
        }
        qp.modify(a, mask);
    }

    /**
     * Puts the QP in the WAN mode both sides agreed on, before RTR: UETH flags and FEC group to the QP, SACK as its loss
     * recovery, and the agreed rate control when this build has it (RRCC and DCQCN come with the rate package; until then
     * the QP runs unpaced and says so in its policy names).
     */
    public static void wan(QueuePair qp, WanOffer agreed) {
        if (!(qp instanceof SoftQp soft)) throw new IllegalArgumentException("wan: needs an urdma QP, was " + qp.getClass().getSimpleName());
        if (qp.type() != QpType.RC) throw new IllegalArgumentException("wan: RC only, this QP is " + qp.type());
        RateControl.Factory rate;
        if (agreed.rateControl().equals("rrcc")) {
            // the agreed reference rate: RRCC starts at it and never paces below it (floor 1.0, planned networks); the
            // agreed cap: never above it
            Rrcc.Config d = Rrcc.Config.defaults();
            rate = RateControl.rrcc(new Rrcc.Config(agreed.referenceBps(), d.floor(), d.initBps(), d.lossThreshold(),
                    d.probeRttIntervalNanos(), d.probeRttTimeNanos(), d.probeRttGain(), agreed.maxBps()));
        } else {
            try {
                rate = RateControl.named(agreed.rateControl());
            } catch (IllegalArgumentException notInThisBuild) {
                rate = RateControl.none();
            }
        }
        soft.policies(agreed.has(OpcodeTable.UETH_SACK) ? LossRecovery.sack() : LossRecovery.goBackN(), rate);
        soft.wan(agreed.uethFlags(), agreed.fecData(), agreed.fecParity());
    }

    static PathMtu min(PathMtu a, PathMtu b) {
        return a.bytes() <= b.bytes() ? a : b;
    }
}
