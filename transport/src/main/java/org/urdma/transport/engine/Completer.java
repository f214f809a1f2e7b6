package org.urdma.transport.engine;

import org.urdma.transport.counters.Counter;
import org.urdma.transport.packet.RxPacket;
import org.urdma.transport.recovery.LossCause;
import org.urdma.transport.wire.Aeth;
import org.urdma.transport.wire.Opcode;
import org.urdma.transport.wire.Psn;
import org.urdma.verbs.QpType;
import org.urdma.verbs.WcStatus;
import org.urdma.verbs.WrOpcode;

/**
 * The completer: consumes ACKs, NAKs, READ responses and atomic ACKs for an RC requester, retires WQEs in
 * order into the send CQ, and drives retransmission through the QP's loss recovery: NAK sequence errors and the local
 * ACK timeout (retry_cnt retries, as the IB specification counts them) and RNR NAKs (rnr_retry, 7 = unlimited).
 * Engine thread only.
 */
final class Completer {
    private static final WcStatus[] STATUS = WcStatus.values();
    private final SoftQp qp;
    private final SendQueue sq;
    /** Oldest PSN not yet acknowledged (or the next READ response PSN expected). */
    int compPsn;
    private int retryLeft;
    private int rnrLeft;
    private boolean retrying;
    /** Packets the requester had sent when the current retry began. */
    private long retryMark;
    long lastProgress;
    /** Everything sent was acknowledged: the next packet sent starts the ACK timeout afresh. */
    private boolean idle;
    /** READ response packets received for the WQE at the head. */
    private int readReceived;
    private int lastOutOfSequence;
    long implicitNaks, readGaps;
    /** Responses older than the oldest unacknowledged PSN (late, duplicated or forged), ignored. */
    long stale;
    /** WAN mode: the READ response PSNs placed so far (any order); null in DC mode. */
    private PsnWindow readWin;
    /** WAN mode: the highest PSN an ACK covered (WQEs behind an unfinished READ retire when it completes). */
    private int ackedHigh;
    /** WAN: the highest request PSN an AETH-EXT answered (what the receiver has seen), and where loss was last fed. */
    private int answeredHigh, lossFedAt;
    /** WAN mode: a READ response this far behind the newest one of its READ and still missing counts as lost. */
    static final int READ_REORDER = 64;

    Completer(SoftQp qp) {
        this.qp = qp;
        this.sq = qp.sq;
    }

    void start(int psn) {
        compPsn = psn;
        retryLeft = qp.retryCnt;
        rnrLeft = qp.rnrRetry;
        retrying = false;
        readReceived = 0;
        readWin = qp.wan() ? new PsnWindow(qp.device.config().window()) : null; // connection setup, not the data path
        ackedHigh = Psn.add(psn, -1);
        answeredHigh = ackedHigh;
        lossFedAt = ackedHigh;
    }

    private Requester req() {
        return qp.requester;
    }

    private boolean outstanding() {
        return sq.retired.get() != req().startedIndex;
    }

    /** A packet went out: make sure the ACK timer runs, timed from now if nothing was outstanding. */
    void onSent(long now) {
        if (idle) {
            idle = false;
            lastProgress = now;
        }
        if (qp.retryTimerId == org.agrona.DeadlineTimerWheel.NULL_DEADLINE && qp.ackTimeoutNanos != Long.MAX_VALUE) {
            lastProgress = now;
            qp.armRetryTimer(now + qp.ackTimeoutNanos);
        }
    }

    /** UC/UD: the last packet left, so the WQE is done. */
    void retireLocal(long idx, long now) {
        int s = sq.slot(idx);
        int err = req().startError[s];
        if (err != 0) {
            qp.retireSend(idx, STATUS[err - 1], 0);
            qp.enterError(now);
            return;
        }
        if (WrOpcode.of(sq.opcode[s]) == WrOpcode.LOCAL_INV) {
            boolean ok = qp.device.keys().invalidateRkey(sq.invalidateRkey[s], qp.pd);
            qp.retireSend(idx, ok ? WcStatus.SUCCESS : WcStatus.LOC_PROT_ERR, 0);
            if (!ok) qp.enterError(now);
            return;
        }
        qp.retireSend(idx, WcStatus.SUCCESS, sq.length[s]);
    }

    /** Retires zero-packet WQEs (LOCAL_INV, failed-at-start) that reached the head. */
    int retireReady(long now) {
        int n = 0;
        while (true) {
            long head = sq.retired.get();
            if (head >= req().startedIndex) return n;
            int s = sq.slot(head);
            if (sq.packets[s] != 0) return n;
            retireLocal(head, now);
            n++;
            if (qp.state() == org.urdma.verbs.QpState.ERR) return n;
        }
    }

    private void retire(long idx, WcStatus status, int byteLen, long now) {
        int s = sq.slot(idx);
        WrOpcode op = WrOpcode.of(sq.opcode[s]);
        if (op.writesLocalMemory()) req().rdAtomicOutstanding--;
        if (op == WrOpcode.RDMA_READ) req().readResponsePsns -= sq.packets[s] - 1;
        qp.retireSend(idx, status, byteLen);
        readReceived = 0;
        if (status != WcStatus.SUCCESS) qp.enterError(now);
    }

    void onResponse(RxPacket p, long now) {
        int psn = p.psn();
        if (!Psn.before(psn, req().nextPsn)) { // for a PSN never sent
            qp.drop(Counter.DROP_BAD_OPCODE, psn, now);
            return;
        }
        int o = (p.opcode() & 0x1F);
        // rxe check_psn: a response before the oldest unacknowledged PSN tells nothing new (a repeat of the last ACK,
        // compPsn - 1, is harmless); acting on it would fail or rewind requests it never answered
        boolean nak = o == Opcode.ACKNOWLEDGE && (p.aethSyndrome() & Aeth.SYNDROME_TYPE) != Aeth.SYNDROME_ACK;
        if (Psn.before(psn, nak ? compPsn : Psn.add(compPsn, -1))) {
            stale++;
            qp.counters.increment(Counter.STALE_RESPONSES);
            return;
        }
        if (p.hasAethExt()) onTimestamps(p, now);
        switch (o) {
            case Opcode.ACKNOWLEDGE -> {
                int syn = p.aethSyndrome();
                switch (syn & Aeth.SYNDROME_TYPE) {
                    case Aeth.SYNDROME_ACK -> {
                        if (Psn.after(psn, ackedHigh)) ackedHigh = psn;
                        onAck(psn, now);
                        if (!p.hasAethExt()) qp.rate.onAck(-1, now);
                        if (p.hasSack()) {
                            onLossReport(p.sackLoss(), now);
                            onSack(p, now);
                        }
                    }
                    case Aeth.SYNDROME_RNR_NAK -> onRnrNak(psn, syn, now);
                    case Aeth.SYNDROME_NAK -> onNak(psn, syn, now);
                    default -> qp.drop(Counter.DROP_BAD_OPCODE, psn, now);
                }
            }
            case Opcode.RDMA_READ_RESPONSE_FIRST, Opcode.RDMA_READ_RESPONSE_MIDDLE, Opcode.RDMA_READ_RESPONSE_LAST, Opcode.RDMA_READ_RESPONSE_ONLY -> onReadResponse(p, o, now);
            case Opcode.ATOMIC_ACKNOWLEDGE -> onAtomicAck(p, now);
            default -> qp.drop(Counter.DROP_BAD_OPCODE, psn, now);
        }
        if (qp.state() != org.urdma.verbs.QpState.ERR) retireReady(now);
    }

    private void onAck(int a, long now) {
        ackThrough(a, true, now);
    }

    /**
     * WAN mode: the receiver's loss rate (SACK-ETH loss byte, 1/4096 over its last 512 PSNs) goes to the rate control
     * and the FEC sizing once per such window of requests it answered, so each report counts once.
     */
    private void onLossReport(int units, long now) {
        if (Psn.diff(answeredHigh, lossFedAt) < LossMeter.WINDOW) return;
        lossFedAt = answeredHigh;
        double fraction = LossMeter.fraction(units);
        qp.rate.onLossRate(fraction, now);
        if (qp.fecTx != null) qp.fecTx.onLossRate(fraction);
    }

    /** WAN mode: an ACK's SACK-ETH hands each missing range to the loss recovery. */
    private void onSack(RxPacket p, long now) {
        int n = p.sackCount();
        for (int i = 0; i < n && qp.state() != org.urdma.verbs.QpState.ERR; i++) {
            int len = p.sackRangeLength(i);
            if (len == 0) continue;
            qp.counters.increment(Counter.SACK_RANGES_RCVD);
            qp.recovery.onSack(p.sackRangeStart(i), len, req(), now);
        }
    }

    /**
     * AETH-EXT: the responder's one-way delay of our last timestamped packet (Ts) plus ours of its ACK (now - T3) is a
     * round trip without the responder's hold time; clock offsets between the hosts cancel in the sum.
     */
    private void onTimestamps(RxPacket p, long now) {
        int forward = p.aethExtTs();
        int reverse = (int) now - p.aethExtT3();
        int rtt = forward + reverse;
        req().reverseOwd = reverse;
        // delivered bytes for a delivery-rate policy (RRCC): how far the newest request the receiver answers moved,
        // in MTU payloads (losses count as delivered: FEC and SACK repair them; a resend answered adds nothing)
        long acked = 0;
        int answered = p.aethExtPsn();
        if (Psn.after(answered, answeredHigh) && Psn.before(answered, req().nextPsn)) {
            acked = (long) Psn.diff(answered, answeredHigh) * qp.mtu;
            answeredHigh = answered;
        }
        if (rtt < 0) { // a stale or garbled echo
            qp.rate.onAck(acked, -1, now);
            return;
        }
        qp.rate.onAck(acked, rtt, now);
        qp.rate.onOneWayDelay(forward, reverse, now);
        qp.recovery.onRtt(rtt, now);
    }

    /**
     * Everything up to and including {@code a} is acknowledged: retire SEND/WRITE WQEs that end there.
     * When {@code implicitNak} and the ACK passes a READ/atomic whose response never came, resend it.
     */
    private void ackThrough(int a, boolean implicitNak, long now) {
        boolean progress = false;
        while (true) {
            long head = sq.retired.get();
            if (head >= req().startedIndex) break;
            int s = sq.slot(head);
            int n = sq.packets[s];
            if (n == 0) {
                retireLocal(head, now);
                if (qp.state() == org.urdma.verbs.QpState.ERR) return;
                continue;
            }
            int first = sq.firstPsn[s];
            WrOpcode op = WrOpcode.of(sq.opcode[s]);
            if (op.writesLocalMemory()) {
                if (readWin != null && op == WrOpcode.RDMA_READ && completeHeadRead(head, s, now)) {
                    progress = true;
                    continue; // WAN: its responses all came (in any order) before this ACK
                }
                // only an ACK past what the READ already delivered says its responses were lost
                if (implicitNak && Psn.atOrAfter(a, Psn.add(first, readReceived))) {
                    implicitNaks++;
                    startRetry(Psn.add(first, readReceived), LossCause.IMPLICIT_NAK, now);
                }
                break;
            }
            if (Psn.atOrAfter(a, Psn.add(first, n - 1))) {
                retire(head, WcStatus.SUCCESS, sq.length[s], now);
                progress = true;
                continue;
            }
            break;
        }
        int candidate = Psn.add(a, 1);
        long head = sq.retired.get();
        if (head < req().startedIndex) {
            int s = sq.slot(head);
            if (WrOpcode.of(sq.opcode[s]).writesLocalMemory()) {
                int resume = Psn.add(sq.firstPsn[s], readReceived);
                if (Psn.after(candidate, resume)) candidate = resume;
            }
        }
        if (Psn.after(candidate, compPsn)) {
            compPsn = candidate;
            progress = true;
            qp.recovery.onAcknowledged(compPsn, now);
        }
        if (progress) onProgress(now);
    }

    private void onProgress(long now) {
        retryLeft = qp.retryCnt;
        rnrLeft = qp.rnrRetry;
        retrying = false;
        lastProgress = now;
        // all acknowledged: the ACK timer stays armed (at expiry it finds nothing outstanding and lapses), so a
        // ping-pong does not cancel and re-schedule a wheel timer on every message; the next send restarts its clock
        if (!outstanding()) idle = true;
    }

    private void onNak(int psn, int syndrome, long now) {
        int code = syndrome & 0x1F;
        qp.counters.increment(Counter.NAKS_RCVD);
        if (code == Aeth.NAK_PSN_SEQUENCE_ERROR) qp.counters.increment(Counter.RCVD_SEQ_ERR);
        qp.journal.nakReceived(now, qp.qpNum(), psn, syndrome);
        ackThrough(Psn.add(psn, -1), false, now);
        if (qp.state() == org.urdma.verbs.QpState.ERR) return;
        if (code == Aeth.NAK_PSN_SEQUENCE_ERROR) {
            // behind an RNR NAK the responder NAKs the packets that followed the refused one: the RNR wait already
            // resends from there, so that is no loss and must not spend retry_cnt (one per RNR round ended a slow
            // receiver's connection in RETRY_EXC_ERR)
            if (!req().rnrWait) startRetry(psn, LossCause.NAK, now);
            return;
        }
        WcStatus status = switch (code) {
            case Aeth.NAK_INVALID_REQUEST -> WcStatus.REM_INV_REQ_ERR;
            case Aeth.NAK_REMOTE_ACCESS_ERROR -> WcStatus.REM_ACCESS_ERR;
            case Aeth.NAK_REMOTE_OPERATIONAL_ERROR -> WcStatus.REM_OP_ERR;
            default -> WcStatus.BAD_RESP_ERR;
        };
        long head = sq.retired.get();
        if (head < req().startedIndex) retire(head, status, 0, now);
    }

    private void onRnrNak(int psn, int syndrome, long now) {
        int timerCode = syndrome & 0x1F;
        qp.counters.increment(Counter.RCVD_RNR_ERR);
        qp.journal.rnrNakReceived(now, qp.qpNum(), psn, syndrome);
        ackThrough(Psn.add(psn, -1), false, now);
        if (qp.state() == org.urdma.verbs.QpState.ERR) return;
        long head = sq.retired.get();
        if (head >= req().startedIndex) return;
        if (rnrLeft == 0) {
            qp.counters.increment(Counter.RETRY_RNR_EXCEEDED_ERR);
            retire(head, WcStatus.RNR_RETRY_EXC_ERR, 0, now);
            return;
        }
        if (rnrLeft != 7) rnrLeft--;
        req().resendAfterRnr();
        req().rewind(psn);
        req().rnrWait = true;
        qp.cancelRetryTimer();
        qp.armRnrTimer(now + Timing.rnrNanos(timerCode));
    }

    private void onReadResponse(RxPacket p, int o, long now) {
        if (readWin != null) {
            onReadResponseWan(p, now);
            return;
        }
        int r = p.psn();
        ackThrough(Psn.add(r, -1), false, now);
        if (qp.state() == org.urdma.verbs.QpState.ERR) return;
        // A response at or after the oldest unacknowledged PSN (the rest of a READ already asked for again, or a later
        // READ's) shows the responder working through a backlog of our requests: rxe restarts its retransmit timer on
        // every response. Timing out here would only queue another copy of the backlog, round after round, until
        // retry_cnt ran out against a slow peer. Older (stale) responses prove nothing and hold nothing off.
        if (!Psn.before(r, compPsn) && Psn.before(r, req().nextPsn)) lastProgress = now;
        long head = sq.retired.get();
        if (head >= req().startedIndex) return;
        int s = sq.slot(head);
        if (WrOpcode.of(sq.opcode[s]) != WrOpcode.RDMA_READ) return;
        int first = sq.firstPsn[s];
        int n = sq.packets[s];
        if (Psn.before(r, first) || !Psn.before(r, Psn.add(first, n))) return;
        int expected = Psn.add(first, readReceived);
        int d = Psn.diff(r, expected);
        if (d < 0) return; // duplicate
        if (d > 0) { // a response was lost
            // the packet right after the missing one, and PSNs went backwards: the responder restarted for our retry
            // and the restart's first packet was lost too, so retry again now rather than wait for the ACK timeout.
            // Any other backward step is a late or duplicated response of an earlier round: retrying for each of
            // those would spend retry_cnt in one burst.
            if (retrying && Psn.before(r, lastOutOfSequence) && d == 1) retrying = false;
            lastOutOfSequence = r;
            readGaps++;
            startRetry(expected, LossCause.READ_GAP, now);
            return;
        }
        int total = sq.length[s];
        int offset = readReceived * qp.mtu;
        int len = p.payloadLength();
        boolean lastPkt = o == Opcode.RDMA_READ_RESPONSE_LAST || o == Opcode.RDMA_READ_RESPONSE_ONLY;
        boolean sizeOk = lastPkt ? offset + len == total && (o == Opcode.RDMA_READ_RESPONSE_ONLY) == (readReceived == 0)
                : len == qp.mtu && offset + len < total && (o == Opcode.RDMA_READ_RESPONSE_FIRST) == (readReceived == 0);
        if (!sizeOk) {
            retire(head, WcStatus.BAD_RESP_ERR, 0, now);
            return;
        }
        int base = s * sq.maxSge;
        int st = Dma.scatter(qp.device.keys(), qp.pd, sq.sgeAddr, sq.sgeLen, sq.sgeLkey, base, sq.numSge[s],
                offset, p.payloads(), p.payload(), p.payloadOffset(), len);
        if (st != Dma.OK) {
            retire(head, st == Dma.LENGTH ? WcStatus.LOC_LEN_ERR : WcStatus.LOC_PROT_ERR, 0, now);
            return;
        }
        qp.counters.add(Counter.PLACED_BYTES, len);
        readReceived++;
        compPsn = Psn.add(r, 1);
        if (lastPkt) retire(head, WcStatus.SUCCESS, total, now);
        onProgress(now);
    }

    /**
     * WAN mode: a READ response is placed by its own RETH (its offset in the READ) on arrival, in any order, into the
     * READ that holds its PSN; the READ completes when all of its PSNs are present and it is the oldest WQE.
     */
    private void onReadResponseWan(RxPacket p, long now) {
        int r = p.psn();
        long idx = -1;
        int s = -1;
        for (long i = sq.retired.get(); i < req().startedIndex; i++) {
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
            stale++;
            qp.counters.increment(Counter.STALE_RESPONSES);
            return;
        }
        int first = sq.firstPsn[s];
        int n = sq.packets[s];
        // the responder answers a READ only once every request before it arrived
        ackThrough(Psn.add(first, -1), false, now);
        if (qp.state() == org.urdma.verbs.QpState.ERR) return;
        int k = Psn.diff(r, first);
        int total = sq.length[s];
        long offset = p.rethVa() - sq.remoteAddr[s];
        int len = p.payloadLength();
        int expected = k == n - 1 ? total - k * qp.mtu : qp.mtu;
        if ((p.uethFlags() & org.urdma.transport.wire.OpcodeTable.UETH_PER_PACKET_RETH) == 0 || offset != (long) k * qp.mtu
                || len != expected) {
            qp.drop(Counter.DROP_BAD_OPCODE, r, now);
            return;
        }
        int base = s * sq.maxSge;
        int st = Dma.scatter(qp.device.keys(), qp.pd, sq.sgeAddr, sq.sgeLen, sq.sgeLkey, base, sq.numSge[s],
                offset, p.payloads(), p.payload(), p.payloadOffset(), len);
        if (st != Dma.OK) {
            if (idx == sq.retired.get()) retire(idx, st == Dma.LENGTH ? WcStatus.LOC_LEN_ERR : WcStatus.LOC_PROT_ERR, 0, now);
            return;
        }
        readWin.set(r, 0, 0, 0);
        qp.counters.add(Counter.PLACED_BYTES, len);
        if (idx != sq.retired.get() || k > readReceived) qp.counters.increment(Counter.OUT_OF_ORDER_PLACED);
        // a response well behind the newest is lost, not late; at the READ's last PSN everything still missing is
        if (k == n - 1) {
            for (int q = first; Psn.before(q, r); q = Psn.add(q, 1)) {
                if (!readWin.has(q)) qp.recovery.onLoss(q, LossCause.READ_GAP, req(), now);
            }
        } else if (k >= READ_REORDER) {
            int q = Psn.add(r, -READ_REORDER);
            if (!readWin.has(q)) qp.recovery.onLoss(q, LossCause.READ_GAP, req(), now);
        }
        lastProgress = now;
        completeReads(now);
    }

    /** WAN mode: retires the READs at the head whose responses are all present, then what ACKs already covered behind them. */
    private void completeReads(long now) {
        while (qp.state() != org.urdma.verbs.QpState.ERR) {
            long head = sq.retired.get();
            if (head >= req().startedIndex) return;
            int s = sq.slot(head);
            if (WrOpcode.of(sq.opcode[s]) != WrOpcode.RDMA_READ) {
                if (Psn.atOrAfter(ackedHigh, sq.firstPsn[s])) ackThrough(ackedHigh, false, now);
                if (sq.retired.get() == head) return;
                continue;
            }
            if (!completeHeadRead(head, s, now)) return;
        }
    }

    /**
     * WAN mode: counts the head READ's responses present from its first PSN on (compPsn follows); when all are, retires
     * it and returns true.
     */
    private boolean completeHeadRead(long head, int s, long now) {
        int first = sq.firstPsn[s];
        int n = sq.packets[s];
        while (readReceived < n && readWin.has(Psn.add(first, readReceived))) readReceived++;
        int resume = Psn.add(first, readReceived);
        if (Psn.after(resume, compPsn)) {
            compPsn = resume;
            qp.recovery.onAcknowledged(compPsn, now);
            onProgress(now);
        }
        if (readReceived < n) return false;
        for (int i = 0; i < n; i++) readWin.clear(Psn.add(first, i));
        retire(head, WcStatus.SUCCESS, sq.length[s], now);
        onProgress(now);
        return true;
    }

    private void onAtomicAck(RxPacket p, long now) {
        int r = p.psn();
        ackThrough(Psn.add(r, -1), false, now);
        if (qp.state() == org.urdma.verbs.QpState.ERR) return;
        // A response at or after the oldest unacknowledged PSN (the rest of a READ already asked for again, or a later
        // READ's) shows the responder working through a backlog of our requests: rxe restarts its retransmit timer on
        // every response. Timing out here would only queue another copy of the backlog, round after round, until
        // retry_cnt ran out against a slow peer. Older (stale) responses prove nothing and hold nothing off.
        if (!Psn.before(r, compPsn) && Psn.before(r, req().nextPsn)) lastProgress = now;
        long head = sq.retired.get();
        if (head >= req().startedIndex) return;
        int s = sq.slot(head);
        if (!WrOpcode.of(sq.opcode[s]).isAtomic() || sq.firstPsn[s] != r) return; // duplicate or stray
        int base = s * sq.maxSge;
        long addr = sq.sgeAddr[base];
        var mr = qp.device.keys().local(sq.sgeLkey[base], qp.pd, addr, 8, org.urdma.verbs.AccessFlags.LOCAL_WRITE);
        if (mr == null) {
            retire(head, WcStatus.LOC_PROT_ERR, 0, now);
            return;
        }
        mr.buffer().putLong(mr.offsetOf(addr), p.atomicOrig());
        compPsn = Psn.add(r, 1);
        retire(head, WcStatus.SUCCESS, 8, now);
        onProgress(now);
    }

    /**
     * The loss recovery decides what to send again after {@code psn} went missing. Counts against retry_cnt as the
     * IB specification says (7 is seven retries; only rnr_retry 7 is unlimited), so a dead peer always ends in
     * RETRY_EXC_ERR.
     */
    private void startRetry(int psn, LossCause cause, long now) {
        if (qp.recovery.selective() && cause != LossCause.TIMEOUT) {
            // a scoreboard keeps its own account of what it resent: no retry round, no retry_cnt (only timeouts count)
            qp.recovery.onLoss(psn, cause, req(), now);
            return;
        }
        // one retry per loss episode, unless the timer fires again or a NAK comes after the retry resent the lost packet
        // and one behind it (the responder NAKs again only when it sees a new round: the resent packet was lost too)
        if (retrying && cause != LossCause.TIMEOUT
                && !(cause == LossCause.NAK && req().transmitted > retryMark + 1 && psn == compPsn)) {
            return;
        }
        long head = sq.retired.get();
        if (head >= req().startedIndex) return;
        if (retryLeft == 0) {
            qp.counters.increment(Counter.RETRY_EXCEEDED_ERR);
            retire(head, WcStatus.RETRY_EXC_ERR, 0, now);
            return;
        }
        retryLeft--;
        qp.counters.increment(Counter.COMPLETER_RETRY_ERR);
        req().resendReason(cause);
        qp.recovery.onLoss(psn, cause, req(), now);
        if (qp.recovery.discardsPartialMessage()) {
            readReceived = 0;
            int from = req().txPsn;
            if (Psn.before(from, compPsn)) compPsn = from;
        }
        retrying = true;
        retryMark = req().transmitted;
        lastProgress = now;
    }

    void onRetryTimer(long now) {
        if (qp.type != QpType.RC || !outstanding() || req().rnrWait) return;
        long due = lastProgress + qp.ackTimeoutNanos;
        if (now < due) {
            qp.armRetryTimer(due);
            return;
        }
        qp.counters.increment(Counter.ACK_TIMEOUTS);
        if (readWin != null && qp.recovery.selective()) rerequestMissingReads(now);
        startRetry(compPsn, LossCause.TIMEOUT, now);
        if (qp.state() == org.urdma.verbs.QpState.ERR) return;
        long next = qp.ackTimeoutNanos;
        // WAN (selective): each timeout in a row doubles the next (up to 64 x), as TCP's RTO, so retry_cnt outlasts a
        // path that went silent for longer than retry_cnt timeouts (a real-time switch stalled for ~0.5 s under load
        // ended runs in RETRY_EXC_ERR); a timeout only probes there, so waiting longer costs no resends
        if (qp.recovery.selective()) next <<= Math.min(6, qp.retryCnt - retryLeft);
        qp.armRetryTimer(now + next);
    }

    /**
     * WAN mode, at an ACK timeout: every READ response still missing is asked for again. The requester is the receiver
     * of READ responses and knows exactly which are missing; a re-requested response that was lost again, or a lost
     * tail, has no later response to reveal it, and the timeout's oldest-plus-probe resend fetched only two per timeout.
     */
    private void rerequestMissingReads(long now) {
        long head = sq.retired.get();
        for (long i = head; i < req().startedIndex; i++) {
            int s = sq.slot(i);
            if (WrOpcode.of(sq.opcode[s]) != WrOpcode.RDMA_READ) continue;
            int first = sq.firstPsn[s];
            int n = sq.packets[s];
            for (int k = i == head ? readReceived : 0; k < n; k++) {
                int q = Psn.add(first, k);
                if (!readWin.has(q)) qp.recovery.onLoss(q, LossCause.READ_GAP, req(), now);
            }
        }
    }

    int retryLeft() {
        return retryLeft;
    }
}
