package org.urdma.transport.engine;

import org.urdma.verbs.QpType;
import org.urdma.verbs.SendFlags;
import org.urdma.verbs.SendWorkRequest;
import org.urdma.verbs.WrOpcode;

/** ibv_post_send's checks of one work request against its QP: SGEs, length, inline data, atomics, UD addressing. */
final class SendChecks {
    private SendChecks() {}

    /** The request's total length; throws naming the field a request breaks. */
    static long check(SoftQp qp, SendWorkRequest wr) {
        if (wr.numSge() > qp.maxSendSge) {
            throw new IllegalArgumentException("num_sge: " + wr.numSge() + " exceeds cap.max_send_sge=" + qp.maxSendSge);
        }
        long total = wr.totalLength();
        if (total > Integer.MAX_VALUE) throw new IllegalArgumentException("sg_list: total length must be < 2 GiB");
        WrOpcode op = wr.opcode();
        if (op == WrOpcode.BIND_MW) BindChecks.check(qp, wr, "bind_mw");
        if ((wr.flags() & SendFlags.INLINE) != 0) {
            if (op.writesLocalMemory()) throw new IllegalArgumentException("send_flags: INLINE is not allowed for " + op);
            if (total > qp.maxInline) {
                throw new IllegalArgumentException("send_flags: INLINE payload " + total + " exceeds cap.max_inline_data=" + qp.maxInline);
            }
        }
        if (op.isAtomic() && op.supportedOn(qp.type) && (wr.numSge() != 1 || total != 8)) {
            throw new IllegalArgumentException("sg_list: an atomic needs exactly one 8-byte SGE, had " + wr.numSge() + " SGEs, " + total + " bytes");
        }
        if (qp.type == QpType.UD && op.supportedOn(qp.type)) {
            if (!(wr.ah() instanceof SoftAh ah) || ah.pd() != qp.pd) {
                throw new IllegalArgumentException("wr.ud.ah: must be an address handle of the QP's protection domain");
            }
            if ((wr.remoteQpn() & ~0xFFFFFF) != 0) throw new IllegalArgumentException("wr.ud.remote_qpn: must fit 24 bits");
        }
        return total;
    }
}
