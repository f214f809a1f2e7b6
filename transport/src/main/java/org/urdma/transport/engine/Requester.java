package org.urdma.transport.engine;

import org.urdma.transport.counters.Counter;
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
    int nextPsn;        // first PSN never assigned
    int rdAtomicOutstanding;
    /** PSNs beyond the request packet held by started, unretired READs. */
    int readResponsePsns;
    boolean rnrWait;
    /** A WQE failed to start: send nothing more; the completer reports it and moves the QP to ERR. */
    boolean stalled;
    private int sinceAckReq;
    /** Why the packets sent again since the last rewind are sent again. */
    private RetransmitReason resendReason = RetransmitReason.TIMEOUT;
    /** Retransmitted packets of this pass not yet journalled: consecutive PSNs from runFirst, one packet each. */
    private int runFirst, runCount;

    Requester(SoftQp qp) {
        this.qp = qp;
        this.sq = qp.sq;
        this.keys = qp.device.keys();
        this.startError = new int[sq.size];
        this.ssn = new int[sq.size];
    }

    void start(int psn) {
        txPsn = psn;
        nextPsn = psn;
        nextSsn = 0;
        qp.completer.start(psn);
    }

    void reset() {
        runCount = 0;
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
        runCount = 0;
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
        if (rnrWait || stalled || qp.state() == org.urdma.verbs.QpState.ERR) return work;
        work += transmit(now, drained);
        journalResent(now);
        return work;
    }

    private int transmit(long now, boolean drained) {
        int work = 0;
        int burst = qp.device.config().txBurst();
        int window = congestionWindow(qp.window());
        windowAckInterval = window < qp.window() ? Math.max(1, window / 2) : 0;
        int sent = qp.type == QpType.RC ? qp.recovery.retransmit(this, now) : 0;
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
                if (sq.packets[s] == 0) { // LOCAL_INV: no packets, retired in order
                    txIndex++;
                    if (qp.type != QpType.RC) qp.completer.retireLocal(idx, now);
                    work++;
                    continue;
                }
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
     * Packets between ACK requests inside a message: the loss recovery's, and at most half a narrowed window, so the
     * ACKs that open a small window come before it closes (HPCC's NIC ACKs every packet).
     */
    private int ackReqInterval() {
        int interval = qp.recovery.ackReqInterval();
        if (windowAckInterval == 0) return interval;
        return interval == 0 ? windowAckInterval : Math.min(interval, windowAckInterval);
    }

    /** The QP's PSN window, narrowed to the rate control's in-flight window ({@code +w} policies) in whole packets. */
    private int congestionWindow(int window) {
        long bytes = qp.rate.windowBytes();
        if (bytes == Long.MAX_VALUE) return window;
        return (int) Math.max(1, Math.min(window, (bytes + qp.mtu - 1) / qp.mtu));
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
        if (op.isSend() || op == WrOpcode.RDMA_WRITE_WITH_IMM) ssn[s] = nextSsn++;
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

    /** Builds the packet at (txIndex, txOffset, txPsn) in the link's frame slot and sends it; false on back-pressure. */
    private boolean sendPacket(int s, WrOpcode op, long now) {
        int service = qp.type == QpType.RC ? Opcode.TRANSPORT_RC : qp.type == QpType.UC ? Opcode.TRANSPORT_UC : Opcode.TRANSPORT_UD;
        int total = sq.length[s];
        int packetsUsed = 1;
        int payload = 0;
        boolean endOfWqe;
        boolean ackReq;
        boolean timed = false;
        TxPacket t;
        Route route = qp.route;
        switch (op) {
            case RDMA_READ -> {
                int remaining = total - txOffset;
                if (selectiveResend && txOffset > 0) remaining = Math.min(qp.mtu, remaining);
                int opcode = service | Opcode.RDMA_READ_REQUEST;
                t = qp.claim(opcode, 0, route, now);
                if (t == null) return false;
                ackReq = true;
                t.start(opcode, qp.destQpn, txPsn, true, false, qp.uethFlags, 0).reth(sq.remoteAddr[s] + txOffset, sq.rkey[s], remaining);
                packetsUsed = Math.max(1, (remaining + qp.mtu - 1) / qp.mtu);
                endOfWqe = true;
            }
            case ATOMIC_CMP_AND_SWP, ATOMIC_FETCH_AND_ADD -> {
                boolean cas = op == WrOpcode.ATOMIC_CMP_AND_SWP;
                int opcode = service | (cas ? Opcode.COMPARE_SWAP : Opcode.FETCH_ADD);
                t = qp.claim(opcode, 0, route, now);
                if (t == null) return false;
                ackReq = true;
                t.start(opcode, qp.destQpn, txPsn, true, false, qp.uethFlags, 0)
                        .atomicEth(sq.remoteAddr[s], sq.rkey[s], cas ? sq.swap[s] : sq.compareAdd[s], sq.compareAdd[s]);
                endOfWqe = true;
            }
            default -> {
                int len = Math.min(qp.mtu, total - txOffset);
                boolean first = txOffset == 0;
                boolean last = txOffset + len == total;
                endOfWqe = last;
                int o;
                if (op.isWrite()) {
                    boolean imm = op == WrOpcode.RDMA_WRITE_WITH_IMM;
                    o = first && last ? (imm ? Opcode.RDMA_WRITE_ONLY_WITH_IMM : Opcode.RDMA_WRITE_ONLY)
                            : first ? Opcode.RDMA_WRITE_FIRST
                            : last ? (imm ? Opcode.RDMA_WRITE_LAST_WITH_IMM : Opcode.RDMA_WRITE_LAST)
                            : Opcode.RDMA_WRITE_MIDDLE;
                } else {
                    boolean imm = op == WrOpcode.SEND_WITH_IMM;
                    boolean inv = op == WrOpcode.SEND_WITH_INV;
                    o = first && last ? (imm ? Opcode.SEND_ONLY_WITH_IMM : inv ? Opcode.SEND_ONLY_WITH_INVALIDATE : Opcode.SEND_ONLY)
                            : first ? Opcode.SEND_FIRST
                            : last ? (imm ? Opcode.SEND_LAST_WITH_IMM : inv ? Opcode.SEND_LAST_WITH_INVALIDATE : Opcode.SEND_LAST)
                            : Opcode.SEND_MIDDLE;
                }
                int opcode = service | o;
                int interval = ackReqInterval();
                // the timed packet asks for its ACK, so the sample is a round trip and not the rest of the message
                timed = qp.type == QpType.RC && qp.rate.wantsRtt() && !rttProbe.running()
                        && !(everSent && Psn.before(txPsn, highestSentPlusOne));
                ackReq = qp.type == QpType.RC && (last || timed || (interval > 0 && sinceAckReq + 1 >= interval));
                t = qp.claim(opcode, len, qp.type == QpType.UD ? sq.ah[s].route() : route, now);
                if (t == null) return false;
                int destQp = qp.destQpn;
                if (qp.type == QpType.UD) {
                    destQp = sq.remoteQpn[s];
                    route = sq.ah[s].route();
                }
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
                gather(s, txOffset, len, t);
                payload = len;
            }
        }
        if ((qp.uethFlags & OpcodeTable.UETH_TS) != 0 && qp.type == QpType.RC) t.ts((int) now, reverseOwd);
        boolean fresh = !(everSent && Psn.before(txPsn, highestSentPlusOne));
        if (fresh && qp.fecTx != null) qp.fecTx.onData(t, txPsn);
        qp.commit(t, route, now);
        if (fresh && qp.fecTx != null) qp.fecTx.flush(now);
        qp.rate.onSent(payload, now);
        transmitted++;
        if (!fresh) {
            resent(packetsUsed);
            rttProbe.resent();
        } else {
            highestSentPlusOne = Psn.add(txPsn, packetsUsed);
            everSent = true;
            if (timed) rttProbe.sent(txPsn, now);
        }
        sinceAckReq = ackReq ? 0 : sinceAckReq + 1;
        txPsn = Psn.add(txPsn, packetsUsed);
        if (op == WrOpcode.RDMA_READ || op.isAtomic()) {
            txOffset = total;
        } else {
            txOffset += payload;
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
    /** Half the rate control's window in packets when it narrows the PSN window, else 0. */
    private int windowAckInterval;
    /** DC mode's RTT samples, one per round trip, for the rate control (WAN mode's ACKs carry timestamps). */
    final RttProbe rttProbe = new RttProbe();
    /** Request packets this requester sent (for the completer's retry logic; the counters have the telemetry). */
    long transmitted;

    /**
     * The packet at txPsn was sent again: counted, and journalled with its neighbours. A run of one-PSN packets becomes
     * one RETRANSMIT event (first PSN, packets); a READ request (one packet for several PSNs) ends its run, so every
     * event's PSNs are exactly the packets resent and the events' counts add up to retransmitted_pkts.
     */
    private void resent(int psns) {
        qp.counters.increment(Counter.RETRANSMITTED_PKTS);
        if (resendReason == RetransmitReason.SACK) qp.counters.increment(Counter.SACK_RESENT_PKTS);
        if (runCount > 0 && txPsn != Psn.add(runFirst, runCount)) journalResent(qp.device.now());
        if (runCount == 0) runFirst = txPsn;
        runCount++;
        if (psns != 1) journalResent(qp.device.now());
    }

    private void journalResent(long now) {
        if (runCount > 0) {
            qp.journal.retransmit(now, qp.qpNum(), runFirst, runCount, resendReason);
            runCount = 0;
        }
    }

    /** What the next packets sent again are resent for (the completer says, before the loss recovery rewinds). */
    @Override
    public void resendReason(LossCause cause) {
        if (runCount > 0 && reasonOf(cause) != resendReason) journalResent(qp.device.now()); // a run has one reason
        resendReason = reasonOf(cause);
    }

    private static RetransmitReason reasonOf(LossCause cause) {
        return switch (cause) {
            case NAK -> RetransmitReason.NAK;
            case IMPLICIT_NAK -> RetransmitReason.IMPLICIT_NAK;
            case READ_GAP -> RetransmitReason.READ_GAP;
            case TIMEOUT -> RetransmitReason.TIMEOUT;
            case SACK -> RetransmitReason.SACK;
        };
    }

    /** An RNR NAK: the next packets sent again wait out the RNR timer first. */
    void resendAfterRnr() {
        resendReason = RetransmitReason.RNR;
    }

    /** Copies {@code len} payload bytes at {@code offset} of WQE slot {@code s} from its SGEs (or inline data) into the frame. */
    private void gather(int s, int offset, int len, TxPacket t) {
        if (len == 0) return;
        if (sq.isInline(s)) {
            t.payload(sq.inline, s * sq.maxInline + offset, len);
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
        int done = 0;
        while (done < len) {
            int chunk = (int) Math.min(len - done, sq.sgeLen[base + i] - within);
            RegisteredMemory mr = sq.sgeMr[base + i];
            t.payload(mr.buffer(), mr.offsetOf(sq.sgeAddr[base + i] + within), chunk);
            done += chunk;
            i++;
            within = 0;
        }
    }

    /** Resend from {@code psn}: find the WQE holding it and restart transmission there. */
    @Override
    public void rewind(int psn) {
        journalResent(qp.device.now());
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

    /** The first PSN never sent; not {@link #nextPsn} (never assigned), which lies past the unsent rest of the WQE in progress. */
    @Override
    public int nextPsn() {
        return everSent ? highestSentPlusOne : txPsn;
    }

    @Override
    public boolean resend(int psn, long now) {
        // resends take the rate control's turns like new packets: a timeout's resend of a lost tail (up to the window)
        // left at line rate into the bottleneck, overran the switch's headroom and lost the next tail too
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
        if (held && resendReason == RetransmitReason.SACK && txOffset > 0 && sq.opcode[sq.slot(txIndex)] == WrOpcode.RDMA_READ.ordinal()) {
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
