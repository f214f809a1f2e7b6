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
 * control past PAXI's CNP merge, everything else to the QP, which then has work in the next pass.
 */
final class RxDemux {
    private final SoftDevice device;
    private final QpTable qps;
    private final EngineCounters counters;
    private final EventJournal journal;
    /** PAXI's CNP merge of received CNPs, or null when off. */
    private final CnpMerge cnpMerge;

    RxDemux(SoftDevice device, QpTable qps, EngineCounters counters, EventJournal journal, long cnpMergeNanos) {
        this.device = device;
        this.qps = qps;
        this.counters = counters;
        this.journal = journal;
        this.cnpMerge = cnpMergeNanos > 0 ? new CnpMerge(cnpMergeNanos) : null;
    }

    void onPacket(RxPacket p, long now) {
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
                qp.cnpsMerged++;
                counters.increment(Counter.CNP_MERGED);
                journal.cnpMerged(now, qp.qpNum(), 0);
                return;
            }
            qp.rx.onCnp(now);
            return;
        }
        qp.rx.onPacket(p, now);
        device.activate(qp);
    }

    void onMalformed(DecodeStatus why, long now) {
        Counter reason = why == DecodeStatus.BAD_ICRC ? Counter.DROP_BAD_ICRC : Counter.DROP_MALFORMED;
        counters.increment(reason);
        journal.drop(now, -1, reason, -1);
    }
}
