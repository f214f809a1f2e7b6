package org.urdma.transport.engine;

import java.nio.ByteBuffer;
import org.agrona.concurrent.UnsafeBuffer;
import org.urdma.transport.memory.MemoryKeyTable;
import org.urdma.transport.memory.RegisteredMemory;
import org.urdma.verbs.AccessFlags;
import org.urdma.verbs.QpType;
import org.urdma.verbs.SendFlags;
import org.urdma.verbs.WcStatus;
import org.urdma.verbs.WrOpcode;

/**
 * The requester: turns send WQEs into packets — segmentation by path MTU, PSN assignment, AckReq — and
 * resends from a PSN when the completer asks (go-back-N or go-back-0). Engine thread only.
 */
final class Requester {
    private final SoftQp qp;
    private final SendQueue sq;
    private final MemoryKeyTable keys;
    /** Staging for a packet whose payload spans SGEs (one extra copy, only in that case). */
    private final UnsafeBuffer stage = new UnsafeBuffer(ByteBuffer.allocateDirect(4096));
    /** Per-WQE error found when starting it, reported in order by the completer (0 = none). */
    final int[] startError;

    long txIndex;       // WQE being transmitted
    long startedIndex;  // WQEs whose PSNs are assigned
    int txPsn;          // PSN of the next packet to send
    int txOffset;       // bytes of WQE txIndex already sent
    int nextPsn;        // first PSN never assigned
    int rdAtomicOutstanding;
    /** PSNs beyond the request packet held by started, unretired READs. */
    int readResponsePsns;
    boolean rnrWait;
    /** A WQE failed to start: send nothing more; the completer reports it and moves the QP to ERR. */
    boolean stalled;
    private int sinceAckReq;
    long packetsSent, retransmittedPackets;

    Requester(SoftQp qp) {
        this.qp = qp;
        this.sq = qp.sq;
        this.keys = qp.device.keys();
        this.startError = new int[sq.size];
    }

    void start(int psn) {
        txPsn = psn;
        nextPsn = psn;
        qp.completer.start(psn);
    }

    void reset() {
        txIndex = startedIndex = sq.retired.get();
        txOffset = 0;
        rdAtomicOutstanding = 0;
        readResponsePsns = 0;
        rnrWait = false;
        stalled = false;
        sinceAckReq = 0;
        everSent = false;
    }

    void afterFlush() {
        stalled = false;
        txIndex = startedIndex = sq.retired.get();
        txOffset = 0;
        rdAtomicOutstanding = 0;
        readResponsePsns = 0;
    }

    boolean hasPendingWork() {
        return !rnrWait && txIndex != sq.producer.get();
    }

    void onRnrTimer(long now) {
        rnrWait = false;
    }

    int progress(long now, boolean drained) {
        int work = qp.type == QpType.RC ? qp.completer.retireReady(now) : 0;
        if (rnrWait || stalled || qp.state() == org.urdma.verbs.QpState.ERR) return work;
        int burst = qp.device.config().txBurst();
        int window = qp.device.config().window();
        int sent = 0;
        while (sent < burst) {
            long idx = txIndex;
            if (idx == sq.producer.get()) break;
            int s = sq.slot(idx);
            WrOpcode op = WrOpcode.of(sq.opcode[s]);
            if (idx == startedIndex) {
                if (drained) break; // SQD: finish what started, start nothing new
                if ((sq.flags[s] & SendFlags.FENCE) != 0 && sq.retired.get() != idx) break;
                if (op.writesLocalMemory() && op.supportedOn(qp.type) && rdAtomicOutstanding >= qp.maxRdAtomic) break;
                if (qp.type == QpType.RC && windowFull(window)) break;
                if (!startWqe(s, op)) {
                    work++;
                    stalled = true;
                    if (qp.type != QpType.RC) qp.completer.retireLocal(idx, now);
                    return work; // RC: the completer reports it in order
                }
                if (sq.packets[s] == 0) { // LOCAL_INV: no packets, retired in order
                    txIndex++;
                    if (qp.type != QpType.RC) qp.completer.retireLocal(idx, now);
                    work++;
                    continue;
                }
            } else if (qp.type == QpType.RC && windowFull(window)) {
                break;
            }
            if (!sendPacket(s, op, now)) break;
            sent++;
        }
        return work + sent;
    }

    /**
     * The window bounds packets we sent and are not yet acknowledged. READ response PSNs are not packets we
     * send (max_rd_atomic bounds READs), so a big READ does not hold back the SENDs and WRITEs behind it.
     */
    private boolean windowFull(int window) {
        return Psn.diff(txPsn, qp.completer.compPsn) - readResponsePsns >= window;
    }

    /** Assigns PSNs and resolves local keys; false when the WQE fails before sending (error recorded). */
    private boolean startWqe(int s, WrOpcode op) {
        long idx = startedIndex;
        startedIndex++;
        sq.firstPsn[s] = txPsn;
        startError[s] = 0;
        int len = sq.length[s];
        int packets;
        WcStatus err = null;
        if (!op.supportedOn(qp.type)) {
            err = WcStatus.LOC_QP_OP_ERR;
        } else if (qp.type == QpType.UD && len > qp.mtu) {
            err = WcStatus.LOC_LEN_ERR;
        } else if (!sq.isInline(s) && !resolve(s, op)) {
            err = WcStatus.LOC_PROT_ERR;
        }
        if (err != null) {
            startError[s] = err.ordinal() + 1;
            sq.packets[s] = 0;
            txIndex = idx + 1;
            txOffset = 0;
            return false;
        }
        if (op == WrOpcode.LOCAL_INV) {
            packets = 0;
        } else if (op.isAtomic()) {
            packets = 1;
        } else {
            packets = Math.max(1, (len + qp.mtu - 1) / qp.mtu);
        }
        sq.packets[s] = packets;
        if (op.writesLocalMemory()) rdAtomicOutstanding++;
        if (op == WrOpcode.RDMA_READ) readResponsePsns += packets - 1;
        nextPsn = Psn.add(txPsn, packets);
        txOffset = 0;
        return true;
    }

    private boolean resolve(int s, WrOpcode op) {
        int rights = op.writesLocalMemory() ? AccessFlags.LOCAL_WRITE : 0;
        int base = s * sq.maxSge;
        for (int i = 0; i < sq.numSge[s]; i++) {
            RegisteredMemory mr = keys.local(sq.sgeLkey[base + i], qp.pd, sq.sgeAddr[base + i], sq.sgeLen[base + i], rights);
            if (mr == null) return false;
            sq.sgeMr[base + i] = mr;
        }
        return true;
    }

    /** Builds and sends the packet at (txIndex, txOffset, txPsn); false on link back-pressure. */
    private boolean sendPacket(int s, WrOpcode op, long now) {
        TransportPacket p = qp.device.tx.clear();
        int service = qp.type == QpType.RC ? Op.RC : qp.type == QpType.UC ? Op.UC : Op.UD;
        int total = sq.length[s];
        int packetsUsed = 1;
        boolean endOfWqe;
        p.psn = txPsn;
        p.destQp = qp.destQpn;
        System.arraycopy(qp.dgid, 0, p.dstGid, 0, 16);
        System.arraycopy(qp.dmac, 0, p.dstMac, 0, 6);
        switch (op) {
            case RDMA_READ -> {
                int remaining = total - txOffset;
                p.opcode = service | Op.READ_REQUEST;
                p.rethVa = sq.remoteAddr[s] + txOffset;
                p.rethRkey = sq.rkey[s];
                p.rethLength = remaining;
                p.ackReq = true;
                packetsUsed = Math.max(1, (remaining + qp.mtu - 1) / qp.mtu);
                endOfWqe = true;
            }
            case ATOMIC_CMP_AND_SWP, ATOMIC_FETCH_AND_ADD -> {
                p.opcode = service | (op == WrOpcode.ATOMIC_CMP_AND_SWP ? Op.CMP_SWAP : Op.FETCH_ADD);
                p.atomicVa = sq.remoteAddr[s];
                p.atomicRkey = sq.rkey[s];
                p.atomicSwapAdd = op == WrOpcode.ATOMIC_CMP_AND_SWP ? sq.swap[s] : sq.compareAdd[s];
                p.atomicCompare = sq.compareAdd[s];
                p.ackReq = true;
                endOfWqe = true;
            }
            default -> {
                int len = Math.min(qp.mtu, total - txOffset);
                boolean first = txOffset == 0;
                boolean last = txOffset + len == total;
                endOfWqe = last;
                boolean write = op.isWrite();
                int o;
                if (write) {
                    o = first && last ? (op == WrOpcode.RDMA_WRITE_WITH_IMM ? Op.WRITE_ONLY_IMM : Op.WRITE_ONLY)
                            : first ? Op.WRITE_FIRST
                            : last ? (op == WrOpcode.RDMA_WRITE_WITH_IMM ? Op.WRITE_LAST_IMM : Op.WRITE_LAST)
                            : Op.WRITE_MIDDLE;
                    if (first) {
                        p.rethVa = sq.remoteAddr[s];
                        p.rethRkey = sq.rkey[s];
                        p.rethLength = total;
                    }
                } else {
                    o = first && last ? (op == WrOpcode.SEND_WITH_IMM ? Op.SEND_ONLY_IMM : op == WrOpcode.SEND_WITH_INV ? Op.SEND_ONLY_INV : Op.SEND_ONLY)
                            : first ? Op.SEND_FIRST
                            : last ? (op == WrOpcode.SEND_WITH_IMM ? Op.SEND_LAST_IMM : op == WrOpcode.SEND_WITH_INV ? Op.SEND_LAST_INV : Op.SEND_LAST)
                            : Op.SEND_MIDDLE;
                }
                p.opcode = service | o;
                p.immData = sq.immData[s];
                p.invalidateRkey = sq.invalidateRkey[s];
                p.solicited = last && (sq.flags[s] & SendFlags.SOLICITED) != 0;
                gather(s, txOffset, len, p);
                if (qp.type == QpType.UD) {
                    p.destQp = sq.remoteQpn[s];
                    p.qkey = sq.remoteQkey[s] < 0 ? qp.qkey : sq.remoteQkey[s]; // high bit set: use the QP's Q_Key
                    p.srcQp = qp.qpNum();
                    System.arraycopy(sq.ah[s].dgid, 0, p.dstGid, 0, 16);
                    System.arraycopy(sq.ah[s].dmac, 0, p.dstMac, 0, 6);
                }
                int interval = qp.reliability.ackReqInterval();
                p.ackReq = qp.type == QpType.RC && (last || (interval > 0 && sinceAckReq + 1 >= interval));
            }
        }
        if (!qp.device.send(p, now)) return false;
        packetsSent++;
        if (everSent && Psn.before(txPsn, highestSentPlusOne)) {
            retransmittedPackets++;
        } else {
            highestSentPlusOne = Psn.add(txPsn, packetsUsed);
            everSent = true;
        }
        sinceAckReq = p.ackReq ? 0 : sinceAckReq + 1;
        txPsn = Psn.add(txPsn, packetsUsed);
        if (op == WrOpcode.RDMA_READ || op.isAtomic()) {
            txOffset = total;
        } else {
            txOffset += p.payloadLength;
        }
        if (endOfWqe) {
            long idx = txIndex;
            txIndex++;
            txOffset = 0;
            if (qp.type != QpType.RC) {
                qp.completer.retireLocal(idx, now);
            }
        }
        if (qp.type == QpType.RC) qp.completer.onSent(now);
        return true;
    }

    private int highestSentPlusOne;
    private boolean everSent;

    private void gather(int s, int offset, int len, TransportPacket p) {
        p.payloadLength = len;
        if (len == 0) {
            p.payload = stage;
            p.payloadOffset = 0;
            return;
        }
        if (sq.isInline(s)) {
            p.payload = sq.inline;
            p.payloadOffset = s * sq.maxInline + offset;
            return;
        }
        int base = s * sq.maxSge;
        int n = sq.numSge[s];
        int i = 0;
        long pos = 0;
        while (i < n && pos + sq.sgeLen[base + i] <= offset) {
            pos += sq.sgeLen[base + i];
            i++;
        }
        long within = offset - pos;
        if (within + len <= sq.sgeLen[base + i]) { // one SGE: point straight into the region (zero copy until the codec)
            RegisteredMemory mr = sq.sgeMr[base + i];
            p.payload = mr.buffer();
            p.payloadOffset = mr.offsetOf(sq.sgeAddr[base + i] + within);
            return;
        }
        int done = 0;
        while (done < len) {
            int chunk = (int) Math.min(len - done, sq.sgeLen[base + i] - within);
            RegisteredMemory mr = sq.sgeMr[base + i];
            stage.putBytes(done, mr.buffer(), mr.offsetOf(sq.sgeAddr[base + i] + within), chunk);
            done += chunk;
            i++;
            within = 0;
        }
        p.payload = stage;
        p.payloadOffset = 0;
    }

    /** Resend from {@code psn}: find the WQE holding it and restart transmission there. */
    void rewind(int psn) {
        for (long i = sq.retired.get(); i < startedIndex; i++) {
            int s = sq.slot(i);
            int n = sq.packets[s];
            if (n == 0) continue;
            int first = sq.firstPsn[s];
            if (Psn.atOrAfter(psn, first) && Psn.before(psn, Psn.add(first, n))) {
                txIndex = i;
                txPsn = psn;
                WrOpcode op = WrOpcode.of(sq.opcode[s]);
                txOffset = op.isAtomic() ? 0 : Psn.diff(psn, first) * qp.mtu;
                return;
            }
        }
        txIndex = startedIndex;
        txPsn = nextPsn;
        txOffset = 0;
    }

    /** First PSN of the WQE holding {@code psn}, or {@code psn} itself when none does. */
    int messageFirstPsn(int psn) {
        for (long i = sq.retired.get(); i < startedIndex; i++) {
            int s = sq.slot(i);
            int n = sq.packets[s];
            int first = sq.firstPsn[s];
            if (n > 0 && Psn.atOrAfter(psn, first) && Psn.before(psn, Psn.add(first, n))) return first;
        }
        return psn;
    }
}
