package org.urdma.transport.engine;

import org.urdma.transport.counters.Counter;
import org.urdma.transport.counters.EngineCounters;
import org.urdma.transport.journal.EventJournal;
import org.urdma.transport.packet.RxPacket;
import org.urdma.transport.rate.CnpMerge;
import org.urdma.transport.wire.DecodeStatus;
import org.urdma.transport.wire.Opcode;

/**
 * Hands each arrival to its QP: unknown QPs and other partitions are dropped and counted, a CNP goes to the QP's rate
 * control past PAXI's CNP merge, everything else to the QP, which then has work in the next pass. A multicast SEND
 * (DestQP 0xFFFFFF) goes to every QP attached to its destination GID's group, as rxe's rxe_rcv_mcast_pkt.
 */
final class RxDemux {
    private final SoftDevice device;
    /** The DestQP of a multicast packet (IBA 9.2, "multicast QP"). */
    static final int MULTICAST_QPN = 0xFFFFFF;
    private final QpTable qps;
    private final McastGroups mcast;
    private final EngineCounters counters;
    private final EventJournal journal;
    /** PAXI's CNP merge of received CNPs, or null when off. */
    private final CnpMerge cnpMerge;

    RxDemux(SoftDevice device, QpTable qps, McastGroups mcast, EngineCounters counters, EventJournal journal,
            long cnpMergeNanos) {
        this.device = device;
        this.qps = qps;
        this.mcast = mcast;
        this.counters = counters;
        this.journal = journal;
        this.cnpMerge = cnpMergeNanos > 0 ? new CnpMerge(cnpMergeNanos) : null;
    }

    void onPacket(RxPacket p, long now) {
        if (p.destQp() == MULTICAST_QPN) {
            onMulticast(p, now);
            return;
        }
        SoftQp qp = qps.lookup(p.destQp());
        if (qp == null) {
            counters.increment(Counter.DROP_UNKNOWN_QP);
            journal.drop(now, p.destQp(), Counter.DROP_UNKNOWN_QP, p.psn());
            return;
        }
        if ((p.pkey() & 0x7FFF) != 0x7FFF) { // only the default partition exists on this port
            qp.drop(Counter.DROP_BAD_PKEY, p.psn(), now);
            return;
        }
        if (p.opcode() == Opcode.CNP) { // neither request nor response: to the rate control, past the CNP merge
            if (cnpMerge != null && !cnpMerge.admit(qp.qpNum(), now)) {
                qp.counters.increment(Counter.CNP_MERGED);
                journal.cnpMerged(now, qp.qpNum(), 0);
                return;
            }
            qp.rx.onCnp(now);
            return;
        }
        qp.rx.onPacket(p, now);
        device.activate(qp);
    }

    /** Each QP attached to the packet's group gets it; a group nobody here joined is an unknown QP's packet. */
    private void onMulticast(RxPacket p, long now) {
        McastGroups.Group g = mcast.find(p.dstGidHi(), p.dstGidLo());
        if (g == null || g.size == 0) {
            counters.increment(Counter.DROP_UNKNOWN_QP);
            journal.drop(now, p.destQp(), Counter.DROP_UNKNOWN_QP, p.psn());
            return;
        }
        for (int i = 0; i < g.size; i++) {
            SoftQp qp = g.qps[i];
            if ((p.pkey() & 0x7FFF) != 0x7FFF) {
                qp.drop(Counter.DROP_BAD_PKEY, p.psn(), now);
                continue;
            }
            qp.rx.onPacket(p, now);
            device.activate(qp);
        }
    }

    void onMalformed(DecodeStatus why, long now) {
        Counter reason = why == DecodeStatus.BAD_ICRC ? Counter.DROP_BAD_ICRC : Counter.DROP_MALFORMED;
        counters.increment(reason);
        journal.drop(now, -1, reason, -1);
    }
}
