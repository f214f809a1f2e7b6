package org.urdma.transport.engine;

import org.urdma.verbs.WcOpcode;
import org.urdma.verbs.WcStatus;

/**
 * The receive WQE a responder took for the message in progress (rxe's {@code qp->resp.wqe}): dequeued at once, as an
 * SRQ is shared, and kept here with its scatter list until the message completes or the QP flushes.
 */
final class TakenRecv {
    private final SoftQp qp;
    private final RecvQueue recvQ;
    boolean held;
    long wrId;
    int numSge;
    final long[] addr = new long[16];
    final int[] len = new int[16];
    final int[] lkey = new int[16];
    /** Bytes of the message placed so far. */
    long offset;

    TakenRecv(SoftQp qp, RecvQueue recvQ) {
        this.qp = qp;
        this.recvQ = recvQ;
    }

    void reset() {
        offset = 0;
        held = false;
    }

    /** Dequeues the next receive into this responder; false when none is posted. */
    boolean take() {
        int slot = recvQ.peek();
        if (slot < 0) return false;
        wrId = recvQ.wrId[slot];
        numSge = recvQ.numSge[slot];
        int base = slot * recvQ.maxSge;
        // a loop, not three arraycopy calls: a receive has one or two SGEs, and a call costs more than the copy
        for (int i = 0; i < numSge; i++) {
            addr[i] = recvQ.sgeAddr[base + i];
            len[i] = recvQ.sgeLen[base + i];
            lkey[i] = recvQ.sgeLkey[base + i];
        }
        recvQ.consume();
        held = true;
        offset = 0;
        if (qp.srq != null) qp.srq.afterConsume();
        return true;
    }

    /** Completes the taken receive into the receive CQ (nothing when none is held). */
    void complete(WcStatus st, WcOpcode op, int length, int imm, int inv, int flags, boolean solicited) {
        if (!held) return;
        held = false;
        offset = 0;
        qp.recvCq.push(wrId, st, op, length, imm, inv, qp.qpNum(), qp.destQpn, flags, solicited);
    }

    /** ERR: a receive taken for a message that never finished is flushed with the rest. */
    void flush() {
        if (held) complete(WcStatus.WR_FLUSH_ERR, WcOpcode.RECV, 0, 0, 0, 0, false);
    }
}
