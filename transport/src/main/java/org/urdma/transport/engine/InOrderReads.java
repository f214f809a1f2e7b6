package org.urdma.transport.engine;

import org.urdma.transport.counters.Counter;
import org.urdma.transport.packet.RxPacket;
import org.urdma.transport.recovery.LossCause;
import org.urdma.transport.wire.Opcode;
import org.urdma.transport.wire.Psn;
import org.urdma.verbs.WcStatus;
import org.urdma.verbs.WrOpcode;

/**
 * DC-mode READ responses: each must be the next PSN of the READ at the head; a gap starts a retry from the first
 * missing PSN, and the bytes land at the offset the count of responses so far gives.
 */
final class InOrderReads implements ReadResponses {
    private final Completer c;
    private final SoftQp qp;
    private final SendQueue sq;
    private int lastOutOfSequence;
    /** READ response gaps seen (each started a retry). */
    long readGaps;

    InOrderReads(Completer c, SoftQp qp) {
        this.c = c;
        this.qp = qp;
        this.sq = qp.sq;
    }

    @Override
    public void onResponse(RxPacket p, int o, long now) {
        int r = p.psn();
        if (!c.ackBefore(r, now)) return;
        long head = sq.retired.get();
        if (head >= c.req().startedIndex) return;
        int s = sq.slot(head);
        if (WrOpcode.of(sq.opcode[s]) != WrOpcode.RDMA_READ) return;
        int first = sq.firstPsn[s];
        int n = sq.packets[s];
        if (Psn.before(r, first) || !Psn.before(r, Psn.add(first, n))) return;
        int expected = Psn.add(first, c.readReceived);
        int d = Psn.diff(r, expected);
        if (d < 0) return; // duplicate
        if (d > 0) { // a response was lost
            // the packet right after the missing one, and PSNs went backwards: the responder restarted for our retry
            // and the restart's first packet was lost too, so retry again now rather than wait for the ACK timeout.
            // Any other backward step is a late or duplicated response of an earlier round: retrying for each of
            // those would spend retry_cnt in one burst.
            if (c.retrying && Psn.before(r, lastOutOfSequence) && d == 1) c.retrying = false;
            lastOutOfSequence = r;
            readGaps++;
            c.startRetry(expected, LossCause.READ_GAP, now);
            return;
        }
        int total = sq.length[s];
        int offset = c.readReceived * qp.mtu;
        int len = p.payloadLength();
        boolean lastPkt = o == Opcode.RDMA_READ_RESPONSE_LAST || o == Opcode.RDMA_READ_RESPONSE_ONLY;
        boolean sizeOk = lastPkt ? offset + len == total && (o == Opcode.RDMA_READ_RESPONSE_ONLY) == (c.readReceived == 0)
                : len == qp.mtu && offset + len < total && (o == Opcode.RDMA_READ_RESPONSE_FIRST) == (c.readReceived == 0);
        if (!sizeOk) {
            c.retire(head, WcStatus.BAD_RESP_ERR, 0, now);
            return;
        }
        int base = s * sq.maxSge;
        int st = Dma.scatter(qp.device.keys(), qp.pd, sq.sgeAddr, sq.sgeLen, sq.sgeLkey, base, sq.numSge[s],
                offset, p.payloads(), p.payload(), p.payloadOffset(), len);
        if (st != Dma.OK) {
            c.retire(head, st == Dma.LENGTH ? WcStatus.LOC_LEN_ERR : WcStatus.LOC_PROT_ERR, 0, now);
            return;
        }
        qp.counters.add(Counter.PLACED_BYTES, len);
        c.readReceived++;
        c.compPsn = Psn.add(r, 1);
        if (lastPkt) c.retire(head, WcStatus.SUCCESS, total, now);
        c.onProgress(now);
    }

    @Override
    public boolean completeHead(long head, int s, long now) {
        return false; // in order, a READ retires on its last response
    }

    @Override
    public void onAck(int psn) {
        // the head READ's own responses say how far it got
    }

    @Override
    public void onTimeout(long now) {
        // the completer's retry resends from the first response missing
    }
}
