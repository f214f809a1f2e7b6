package org.urdma.transport.engine;

import org.urdma.transport.journal.RetransmitReason;
import org.urdma.transport.memory.MemoryKeyTable;
import org.urdma.transport.memory.RegisteredMemory;
import org.urdma.transport.packet.Route;
import org.urdma.transport.packet.TxPacket;
import org.urdma.transport.recovery.LossCause;
import org.urdma.transport.recovery.LossRecovery;
import org.urdma.transport.wire.Opcode;
import org.urdma.transport.wire.OpcodeTable;
import org.urdma.transport.wire.Psn;
import org.urdma.verbs.AccessFlags;
import org.urdma.verbs.QpState;
import org.urdma.verbs.QpType;
import org.urdma.verbs.SendFlags;
import org.urdma.verbs.WcStatus;
import org.urdma.verbs.WrOpcode;

/**
 * The requester: turns send WQEs into packets — segmentation by path MTU, PSN assignment, AckReq — and
 * resends from a PSN when the completer asks (go-back-N or go-back-0). Engine thread only.
 */
final class Requester implements LossRecovery.Retransmitter {
    private final SoftQp qp;
    private final SendQueue sq;
    private final MemoryKeyTable keys;
    /** Per-WQE error found when starting it, reported in order by the completer (0 = none). */
    final int[] startError;
    /** WAN mode: per WQE, its receive sequence number (SENDs and WRITEs with immediate consume the peer's receives in order). */
    private final int[] ssn;
    private int nextSsn;
    /** WAN mode: a selective resend of a READ response PSN asks for that one packet, not the rest of the READ. */
    private boolean selectiveResend;
    /** WAN mode: the last one-way delay responder → requester (ns mod 2^32), carried as TS.Tr. */
    int reverseOwd;

    long txIndex;       // WQE being transmitted
    long startedIndex;  // WQEs whose PSNs are assigned
    int txPsn;          // PSN of the next packet to send
    int txOffset;       // bytes of WQE txIndex already sent
    /** First PSN never assigned to a WQE (past the unsent rest of the WQE in progress). */
    int firstUnassignedPsn;
    int rdAtomicOutstanding;
    /** PSNs beyond the request packet held by started, unretired READs. */
    int readResponsePsns;
    boolean rnrWait;
    /**
     * A WQE failed to start: start nothing more (WQEs before it may still be resent, or it never reaches the head);
     * the completer reports it in order and moves the QP to ERR.
     */
    boolean stalled;
    private int sinceAckReq;
    /** Packets sent again, counted and journalled in runs with their reason. */
    private final ResendJournal resends;

    Requester(SoftQp qp) {
        this.qp = qp;
        this.sq = qp.sq;
        this.keys = qp.device.keys();
        this.startError = new int[sq.size];
        this.ssn = new int[sq.size];
        this.resends = new ResendJournal(qp);
    }

    void start(int psn) {
        txPsn = psn;
        firstUnassignedPsn = psn;
        nextSsn = 0;
        qp.completer.start(psn);
    }

    void reset() {
        resends.reset();
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
        resends.reset();
        stalled = false;
        txIndex = startedIndex = sq.retired.get();
        txOffset = 0;
        rdAtomicOutstanding = 0;
        readResponsePsns = 0;
    }

    boolean hasPendingWork() {
        return !rnrWait && (txIndex != sq.producer.get() || qp.type == QpType.RC && qp.recovery.hasResends());
    }

    void onRnrTimer(long now) {
        rnrWait = false;
    }

    int progress(long now, boolean drained) {
        int work = qp.type == QpType.RC ? qp.completer.retireReady(now) : 0;
        if (rnrWait || qp.state() == QpState.ERR) return work;
        work += transmit(now, drained || stalled);
        resends.flush(now);
        return work;
    }

    private int transmit(long now, boolean drained) {
        int work = 0;
        int burst = qp.device.config().txBurst();
        int window = cwnd.narrow(qp.window(), qp.rate.windowBytes(), qp.mtu);
        int sent = 0;
        if (qp.type == QpType.RC) {
            sent = qp.recovery.retransmit(this, now);
            long check = qp.recovery.nextCheck(); // a PSN reported missing is judged when its reorder wait ends
            if (check != Long.MAX_VALUE) qp.timers.armLossCheck(check);
        }
        if (qp.fecTx != null) qp.fecTx.flush(now);
        while (sent < burst) {
            long idx = txIndex;
            if (idx == sq.producer.get()) break;
            int s = sq.slot(idx);
            WrOpcode op = WrOpcode.of(sq.opcode[s]);
            if (idx == startedIndex) {
                if (drained) break; // SQD: finish what started, start nothing new
                if ((sq.flags[s] & SendFlags.FENCE) != 0 && sq.retired.get() != idx) break;
                if (op.writesLocalMemory() && op.supportedOn(qp.type) && rdAtomicOutstanding >= qp.maxRdAtomic) break;
                if (qp.type == QpType.RC && windowFull(window)) {
                    qp.pacedUntil = Long.MIN_VALUE; // waits for an ACK, not a time: a past deadline would wake it forever
                    break;
                }
                if (!startWqe(s, op)) {
                    work++;
                    stalled = true;
                    if (qp.type != QpType.RC) qp.completer.retireLocal(idx, now);
                    return work; // RC: the completer reports it in order
                }
                if (sq.packets[s] == 0) { // LOCAL_INV, BIND_MW: no packets, retired in order
                    txIndex++;
                    if (qp.type != QpType.RC) qp.completer.retireLocal(idx, now);
                    work++;
                    continue;
                }
            } else if (sq.packets[s] == 0) { // a resend walks past a local or failed WQE: it ran once, at its start
                txIndex++;
                continue;
            } else if (qp.type == QpType.RC && windowFull(window)) {
                qp.pacedUntil = Long.MIN_VALUE;
                break;
            }
            long at = qp.rate.nextSendTime(now);
            if (at > now) { // paced: the device's next event time includes this deadline
                qp.pacedUntil = at;
                break;
            }
            qp.pacedUntil = Long.MIN_VALUE;
            if (qp.fecTx != null && !qp.fecTx.flush(now)) break; // a group's parity first: the next group reuses its buffers
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
        } else if (op == WrOpcode.BIND_MW && !keys.bind(qp, sq.bindMw[s], sq.rkey[s], sq.bindMr[s], sq.remoteAddr[s], sq.bindLength[s],
                sq.bindAccess[s])) {
            err = WcStatus.MW_BIND_ERR; // bound when the requester reaches it, as rxe: work posted after it may use the new rkey
        } else if (op == WrOpcode.LOCAL_INV && !keys.invalidateRkey(sq.invalidateRkey[s], qp.pd)) {
            err = WcStatus.LOC_PROT_ERR; // invalidated when reached, like a bind: a BIND_MW behind it finds the window free
        }
        if (err != null) {
            startError[s] = err.ordinal() + 1;
            sq.packets[s] = 0;
            txIndex = idx + 1;
            txOffset = 0;
            return false;
        }
        if (op.isLocal()) {
            packets = 0;
        } else if (op.isAtomic()) {
            packets = 1;
        } else {
            packets = Math.max(1, (len + qp.mtu - 1) / qp.mtu);
        }
        sq.packets[s] = packets;
        if (op.writesLocalMemory()) rdAtomicOutstanding++;
        if (op == WrOpcode.RDMA_READ) readResponsePsns += packets - 1;
        if (op.isSend() || op == WrOpcode.RDMA_WRITE_WITH_IMM) ssn[s] = nextSsn++;
        firstUnassignedPsn = Psn.add(txPsn, packets);
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

    /** Builds the packet at (txIndex, txOffset, txPsn) in the link's frame slot and sends it; false on back-pressure. */
    private boolean sendPacket(int s, WrOpcode op, long now) {
        int opcode = nextOpcode(s, op);
        int len = payloadLength(s, op);
        int psns = op == WrOpcode.RDMA_READ ? Math.max(1, (readLength(s) + qp.mtu - 1) / qp.mtu) : 1;
        boolean fresh = !(everSent && Psn.before(txPsn, highestSentPlusOne));
        // the timed packet asks for its ACK, so the sample is a round trip and not the rest of the message
        boolean timed = fresh && qp.type == QpType.RC && !op.isAtomic() && op != WrOpcode.RDMA_READ
                && qp.rate.wantsRtt() && !rttProbe.running();
        boolean ackReq = ackReqFor(opcode) || timed;
        Route to = qp.type == QpType.UD ? sq.ah[s].route() : qp.route;
        TxPacket t = qp.claim(opcode, len, to, now);
        if (t == null) return false;
        writeHeaders(t, s, op, opcode, ackReq, len, now);
        if (fresh && qp.fecTx != null) qp.fecTx.onData(t, txPsn);
        qp.commit(t, to, now);
        if (fresh && qp.fecTx != null) qp.fecTx.flush(now);
        if (timed) rttProbe.sent(txPsn, now);
        afterSend(s, op, opcode, len, psns, ackReq, fresh, now);
        return true;
    }

    /**
     * rxe's next_opcode: the opcode of the packet at txOffset of WQE slot {@code s}: the family by the work request,
     * FIRST, MIDDLE, LAST or ONLY by where the packet falls in the message, and the QP's transport.
     */
    private int nextOpcode(int s, WrOpcode op) {
        int service = qp.type == QpType.RC ? Opcode.TRANSPORT_RC : qp.type == QpType.UC ? Opcode.TRANSPORT_UC : Opcode.TRANSPORT_UD;
        switch (op) {
            case RDMA_READ -> {
                return service | Opcode.RDMA_READ_REQUEST;
            }
            case ATOMIC_CMP_AND_SWP -> {
                return service | Opcode.COMPARE_SWAP;
            }
            case ATOMIC_FETCH_AND_ADD -> {
                return service | Opcode.FETCH_ADD;
            }
            default -> {
                int total = sq.length[s];
                int len = Math.min(qp.mtu, total - txOffset);
                boolean first = txOffset == 0;
                boolean last = txOffset + len == total;
                if (op.isWrite()) {
                    boolean imm = op == WrOpcode.RDMA_WRITE_WITH_IMM;
                    return service | (first && last ? (imm ? Opcode.RDMA_WRITE_ONLY_WITH_IMM : Opcode.RDMA_WRITE_ONLY)
                            : first ? Opcode.RDMA_WRITE_FIRST
                            : last ? (imm ? Opcode.RDMA_WRITE_LAST_WITH_IMM : Opcode.RDMA_WRITE_LAST)
                            : Opcode.RDMA_WRITE_MIDDLE);
                }
                boolean imm = op == WrOpcode.SEND_WITH_IMM;
                boolean inv = op == WrOpcode.SEND_WITH_INV;
                return service | (first && last ? (imm ? Opcode.SEND_ONLY_WITH_IMM : inv ? Opcode.SEND_ONLY_WITH_INVALIDATE : Opcode.SEND_ONLY)
                        : first ? Opcode.SEND_FIRST
                        : last ? (imm ? Opcode.SEND_LAST_WITH_IMM : inv ? Opcode.SEND_LAST_WITH_INVALIDATE : Opcode.SEND_LAST)
                        : Opcode.SEND_MIDDLE);
            }
        }
    }

    /** Payload bytes of the packet at txOffset: up to one MTU of a SEND or WRITE; a READ request or atomic has none. */
    private int payloadLength(int s, WrOpcode op) {
        if (op == WrOpcode.RDMA_READ || op.isAtomic()) return 0;
        return Math.min(qp.mtu, sq.length[s] - txOffset);
    }

    /** Bytes a READ request at txOffset asks for: the rest of the READ, or one response when resent selectively. */
    private int readLength(int s) {
        int remaining = sq.length[s] - txOffset;
        if (selectiveResend && txOffset > 0) remaining = Math.min(qp.mtu, remaining);
        return remaining;
    }

    /** RC asks for an ACK at a message's end (a READ and an atomic are one packet) and every ackReqInterval packets. */
    private boolean ackReqFor(int opcode) {
        int interval = cwnd.ackReqInterval(qp.recovery.ackReqInterval());
        int cc = qp.rate.ackEvery();
        if (cc > 0) interval = interval == 0 ? cc : Math.min(interval, cc);
        return qp.type == QpType.RC && (OpcodeTable.has(opcode, OpcodeTable.END) || (interval > 0 && sinceAckReq + 1 >= interval));
    }

    /** Writes the packet's headers (BTH, RETH, AtomicETH, ImmDt, IETH, DETH, TS) and, for a SEND or WRITE, its payload. */
    private void writeHeaders(TxPacket t, int s, WrOpcode op, int opcode, boolean ackReq, int len, long now) {
        switch (op) {
            case RDMA_READ -> t.start(opcode, qp.destQpn, txPsn, true, false, qp.uethFlags, 0)
                    .reth(sq.remoteAddr[s] + txOffset, sq.rkey[s], readLength(s));
            case ATOMIC_CMP_AND_SWP, ATOMIC_FETCH_AND_ADD -> t.start(opcode, qp.destQpn, txPsn, true, false, qp.uethFlags, 0)
                    .atomicEth(sq.remoteAddr[s], sq.rkey[s], op == WrOpcode.ATOMIC_CMP_AND_SWP ? sq.swap[s] : sq.compareAdd[s],
                            sq.compareAdd[s]);
            default -> {
                int total = sq.length[s];
                boolean first = txOffset == 0;
                boolean last = OpcodeTable.has(opcode, OpcodeTable.END);
                int destQp = qp.type == QpType.UD ? sq.remoteQpn[s] : qp.destQpn;
                t.start(opcode, destQp, txPsn, ackReq, last && (sq.flags[s] & SendFlags.SOLICITED) != 0,
                        qp.type == QpType.RC ? qp.uethFlags : 0, 0);
                int flags = OpcodeTable.flags(opcode);
                if (qp.perPacketReth() && qp.type == QpType.RC) {
                    // WAN: every packet says where its bytes go (a SEND: offset, receive sequence number, length)
                    if (op.isWrite()) t.reth(sq.remoteAddr[s] + txOffset, sq.rkey[s], total);
                    else t.reth(txOffset, ssn[s], total);
                } else if (first && op.isWrite()) {
                    t.reth(sq.remoteAddr[s], sq.rkey[s], total);
                }
                if ((flags & OpcodeTable.IMM) != 0) t.immData(sq.immData[s]);
                if ((flags & OpcodeTable.INV) != 0) t.invalidateRkey(sq.invalidateRkey[s]);
                if (qp.type == QpType.UD) {
                    // high bit set in the WR's Q_Key: use the QP's own
                    t.deth(sq.remoteQkey[s] < 0 ? qp.qkey : sq.remoteQkey[s], qp.qpNum());
                }
                Dma.gather(sq, s, txOffset, len, t);
            }
        }
        if ((qp.uethFlags & OpcodeTable.UETH_TS) != 0 && qp.type == QpType.RC) t.ts((int) now, reverseOwd);
        qp.telemetry.onRequestWritten(t);
    }

    /**
     * After a packet left: the rate control hears it, a resend is counted and journalled, the AckReq cadence and the
     * send position move on, and a WQE whose last packet this was is done (UC/UD) or waits for its ACK (RC).
     */
    private void afterSend(int s, WrOpcode op, int opcode, int len, int psns, boolean ackReq, boolean fresh, long now) {
        qp.rate.onSent(len, now);
        transmitted++;
        int sentPsn = txPsn;
        if (!fresh) {
            resends.resent(txPsn, psns);
            rttProbe.resent();
        } else {
            highestSentPlusOne = Psn.add(txPsn, psns);
            everSent = true;
        }
        sinceAckReq = ackReq ? 0 : sinceAckReq + 1;
        txPsn = Psn.add(txPsn, psns);
        if (op == WrOpcode.RDMA_READ || op.isAtomic()) {
            txOffset = sq.length[s];
        } else {
            txOffset += len;
        }
        if (OpcodeTable.has(opcode, OpcodeTable.END)) {
            long idx = txIndex;
            txIndex++;
            txOffset = 0;
            if (qp.type != QpType.RC) {
                qp.completer.retireLocal(idx, now);
            }
        }
        if (qp.type == QpType.RC) {
            qp.recovery.onSent(sentPsn, psns, now);
            qp.completer.onSent(now);
        }
    }

    private int highestSentPlusOne;
    private boolean everSent;
    /** The rate control's in-flight window ({@code +w} policies) over the PSN window. */
    private final CongestionWindow cwnd = new CongestionWindow();
    /** DC mode's RTT samples, one per round trip, for the rate control (WAN mode's ACKs carry timestamps). */
    final RttProbe rttProbe = new RttProbe();
    /** Request packets this requester sent (for the completer's retry logic; the counters have the telemetry). */
    long transmitted;

    /** What the next packets sent again are resent for (the completer says, before the loss recovery rewinds). */
    @Override
    public void resendReason(LossCause cause) {
        resends.reason(cause);
    }

    /** An RNR NAK: the next packets sent again wait out the RNR timer first. */
    void resendAfterRnr() {
        resends.afterRnr();
    }

    /** Resend from {@code psn}: find the WQE holding it and restart transmission there. */
    @Override
    public void rewind(int psn) {
        resends.flush(qp.device.now());
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
        txPsn = firstUnassignedPsn;
        txOffset = 0;
    }

    /** The first PSN never sent; not {@link #firstUnassignedPsn}, which lies past the unsent rest of the WQE in progress. */
    @Override
    public int firstUnsentPsn() {
        return everSent ? highestSentPlusOne : txPsn;
    }

    @Override
    public boolean resend(int psn, long now) {
        // resends take the rate control's turns like new packets: a timeout's resend of a lost tail (up to the window)
        // at line rate would overrun the bottleneck's headroom and lose the next tail too
        long at = qp.rate.nextSendTime(now);
        if (at > now) {
            qp.pacedUntil = at;
            return false;
        }
        qp.pacedUntil = Long.MIN_VALUE;
        long index = txIndex;
        int offset = txOffset;
        int next = txPsn;
        int since = sinceAckReq;
        rewind(psn);
        boolean held = txIndex < startedIndex;
        if (held && resends.reason() == RetransmitReason.SACK && txOffset > 0 && sq.opcode[sq.slot(txIndex)] == WrOpcode.RDMA_READ.ordinal()) {
            // a SACK covers the responder's request PSNs: a READ's response PSNs in its range were never missing there
            held = false;
        }
        selectiveResend = true;
        boolean sent = !held || sendPacket(sq.slot(txIndex), WrOpcode.of(sq.opcode[sq.slot(txIndex)]), now);
        selectiveResend = false;
        // new packets continue where they were; the resent one does not count towards the AckReq cadence
        txIndex = index;
        txOffset = offset;
        txPsn = next;
        sinceAckReq = since;
        return sent;
    }

    /** First PSN of the WQE holding {@code psn}, or {@code psn} itself when none does. */
    @Override
    public int messageFirstPsn(int psn) {
        for (long i = sq.retired.get(); i < startedIndex; i++) {
            int s = sq.slot(i);
            int n = sq.packets[s];
            int first = sq.firstPsn[s];
            if (n > 0 && Psn.atOrAfter(psn, first) && Psn.before(psn, Psn.add(first, n))) return first;
        }
        return psn;
    }
}
