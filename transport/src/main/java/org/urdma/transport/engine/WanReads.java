package org.urdma.transport.engine;

import org.urdma.transport.counters.Counter;
import org.urdma.transport.packet.RxPacket;
import org.urdma.transport.recovery.LossCause;
import org.urdma.transport.wire.OpcodeTable;
import org.urdma.transport.wire.Psn;
import org.urdma.verbs.QpState;
import org.urdma.verbs.WcStatus;
import org.urdma.verbs.WrOpcode;

/**
 * WAN-mode READ responses: each is placed by its own RETH (its offset in the READ) on arrival, in any order, into the
 * READ that holds its PSN; a READ completes when all of its PSNs are present and it is the oldest WQE.
 */
final class WanReads implements ReadResponses {
    /** A READ response this far behind the newest one of its READ and still missing counts as lost. */
    static final int READ_REORDER = 64;
    private final Completer c;
    private final SoftQp qp;
    private final SendQueue sq;
    /** The READ response PSNs placed so far (any order). */
    private PsnWindow readWin;
    /** The highest PSN an ACK covered (WQEs behind an unfinished READ retire when it completes). */
    private int ackedHigh;

    WanReads(Completer c, SoftQp qp) {
        this.c = c;
        this.qp = qp;
        this.sq = qp.sq;
    }

    void start(int psn) {
        readWin = new PsnWindow(qp.device.config().window()); // connection setup, not the data path
        ackedHigh = Psn.add(psn, -1);
    }

    @Override
    public void onAck(int psn) {
        if (Psn.after(psn, ackedHigh)) ackedHigh = psn;
    }

    @Override
    public void onResponse(RxPacket p, int o, long now) {
        int r = p.psn();
        long idx = -1;
        int s = -1;
        for (long i = sq.retired.get(); i < c.req().startedIndex; i++) {
            int si = sq.slot(i);
            int n = sq.packets[si];
            int first = sq.firstPsn[si];
            if (n == 0 || Psn.before(r, first) || !Psn.before(r, Psn.add(first, n))) continue;
            if (WrOpcode.of(sq.opcode[si]) == WrOpcode.RDMA_READ) {
                idx = i;
                s = si;
            }
            break;
        }
        if (s < 0 || readWin.has(r)) { // a duplicate, or a response to a READ already done
            qp.counters.increment(Counter.STALE_RESPONSES);
            return;
        }
        int first = sq.firstPsn[s];
        int n = sq.packets[s];
        // the responder answers a READ only once every request before it arrived
        c.ackThrough(Psn.add(first, -1), false, now);
        if (qp.state() == QpState.ERR) return;
        int k = Psn.diff(r, first);
        int total = sq.length[s];
        long offset = p.rethVa() - sq.remoteAddr[s];
        int len = p.payloadLength();
        int expected = k == n - 1 ? total - k * qp.mtu : qp.mtu;
        if ((p.uethFlags() & OpcodeTable.UETH_PER_PACKET_RETH) == 0 || offset != (long) k * qp.mtu
                || len != expected) {
            qp.drop(Counter.DROP_BAD_OPCODE, r, now);
            return;
        }
        int base = s * sq.maxSge;
        int st = Dma.scatter(qp.device.keys(), qp.pd, sq.sgeAddr, sq.sgeLen, sq.sgeLkey, base, sq.numSge[s],
                offset, p.payloads(), p.payload(), p.payloadOffset(), len);
        if (st != Dma.OK) {
            if (idx == sq.retired.get()) c.retire(idx, st == Dma.LENGTH ? WcStatus.LOC_LEN_ERR : WcStatus.LOC_PROT_ERR, 0, now);
            return;
        }
        readWin.set(r, 0, 0, 0);
        qp.counters.add(Counter.PLACED_BYTES, len);
        if (idx != sq.retired.get() || k > c.readReceived) qp.counters.increment(Counter.OUT_OF_ORDER_PLACED);
        // a response well behind the newest is lost, not late; at the READ's last PSN everything still missing is
        if (k == n - 1) {
            for (int q = first; Psn.before(q, r); q = Psn.add(q, 1)) {
                if (!readWin.has(q)) qp.recovery.onLoss(q, LossCause.READ_GAP, c.req(), now);
            }
        } else if (k >= READ_REORDER) {
            int q = Psn.add(r, -READ_REORDER);
            if (!readWin.has(q)) qp.recovery.onLoss(q, LossCause.READ_GAP, c.req(), now);
        }
        c.lastProgress = now;
        completeReads(now);
    }

    /** Retires the READs at the head whose responses are all present, then what ACKs already covered behind them. */
    private void completeReads(long now) {
        while (qp.state() != QpState.ERR) {
            long head = sq.retired.get();
            if (head >= c.req().startedIndex) return;
            int s = sq.slot(head);
            if (WrOpcode.of(sq.opcode[s]) != WrOpcode.RDMA_READ) {
                if (Psn.atOrAfter(ackedHigh, sq.firstPsn[s])) c.ackThrough(ackedHigh, false, now);
                if (sq.retired.get() == head) return;
                continue;
            }
            if (!completeHead(head, s, now)) return;
        }
    }

    /**
     * Counts the head READ's responses present from its first PSN on (compPsn follows); when all are, retires it and
     * returns true.
     */
    @Override
    public boolean completeHead(long head, int s, long now) {
        int first = sq.firstPsn[s];
        int n = sq.packets[s];
        while (c.readReceived < n && readWin.has(Psn.add(first, c.readReceived))) c.readReceived++;
        int resume = Psn.add(first, c.readReceived);
        if (Psn.after(resume, c.compPsn)) {
            c.compPsn = resume;
            qp.recovery.onAcknowledged(c.compPsn, now);
            c.onProgress(now);
        }
        if (c.readReceived < n) return false;
        for (int i = 0; i < n; i++) readWin.clear(Psn.add(first, i));
        c.retire(head, WcStatus.SUCCESS, sq.length[s], now);
        c.onProgress(now);
        return true;
    }

    /**
     * At an ACK timeout under a selective recovery, every READ response still missing is asked for again. The requester
     * is the receiver of READ responses and knows exactly which are missing; a re-requested response that was lost
     * again, or a lost tail, has no later response to reveal it, and the timeout's oldest-plus-probe resend fetched
     * only two per timeout.
     */
    @Override
    public void onTimeout(long now) {
        if (!qp.recovery.selective()) return;
        long head = sq.retired.get();
        for (long i = head; i < c.req().startedIndex; i++) {
            int s = sq.slot(i);
            if (WrOpcode.of(sq.opcode[s]) != WrOpcode.RDMA_READ) continue;
            int first = sq.firstPsn[s];
            int n = sq.packets[s];
            for (int k = i == head ? c.readReceived : 0; k < n; k++) {
                int q = Psn.add(first, k);
                if (!readWin.has(q)) qp.recovery.onLoss(q, LossCause.READ_GAP, c.req(), now);
            }
        }
    }
}
