package org.urdma.transport.engine;

import org.urdma.transport.counters.Counter;
import org.urdma.transport.packet.RxPacket;
import org.urdma.transport.recovery.LossCause;
import org.urdma.transport.wire.Aeth;
import org.urdma.transport.wire.Opcode;
import org.urdma.transport.wire.Psn;
import org.urdma.verbs.AccessFlags;
import org.urdma.verbs.QpState;
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
    /**
     * Losses since the last progress, by what revealed them: a sequence-error NAK or a gap in the READ responses (the
     * peer answers) or the ACK timer (it is silent).
     */
    private int episodeNaks;
    private int episodeGaps;
    private int episodeTimeouts;
    boolean retrying;
    /** Packets the requester had sent when the current retry began. */
    private long retryMark;
    long lastProgress;
    /** Everything sent was acknowledged: the next packet sent starts the ACK timeout afresh. */
    private boolean idle;
    /** READ response packets received for the WQE at the head. */
    int readReceived;
    long implicitNaks;
    /** What ACKs' WAN headers (AETH-EXT, SACK-ETH) tell the rate control, FEC sizing and loss recovery. */
    private final AckFeedback feedback;
    private final InOrderReads inOrderReads;
    /** Made the first time the QP connects in WAN mode, and kept. */
    private WanReads wanReads;
    /** How this connection takes READ responses, chosen at RTS. */
    private ReadResponses reads;
    /** What {@link #retireAcknowledged} did: nothing, retired or moved something, or met a WQE that failed (stop). */
    private static final int NO_PROGRESS = 0, PROGRESS = 1, FAILED = -1;

    Completer(SoftQp qp) {
        this.qp = qp;
        this.sq = qp.sq;
        this.inOrderReads = new InOrderReads(this, qp);
        this.reads = inOrderReads;
        this.feedback = new AckFeedback(qp);
    }

    void start(int psn) {
        compPsn = psn;
        retryLeft = qp.retryCnt;
        rnrLeft = qp.rnrRetry;
        retrying = false;
        readReceived = 0;
        if (qp.wan()) {
            if (wanReads == null) wanReads = new WanReads(this, qp);
            wanReads.start(psn);
            reads = wanReads;
        } else {
            reads = inOrderReads;
        }
        feedback.start(psn);
    }

    /** READ response gaps seen in DC mode (each started a retry). */
    long readGaps() {
        return inOrderReads.readGaps;
    }

    Requester req() {
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
        if (!qp.timers.retry.armed() && qp.ackTimeoutNanos != Long.MAX_VALUE) {
            lastProgress = now;
            qp.timers.armRetry(now + qp.ackTimeoutNanos);
        }
    }

    /** UC/UD: the last packet left, so the WQE is done; RC: a zero-packet WQE (local, or failed at start) at the head. */
    void retireLocal(long idx, long now) {
        int s = sq.slot(idx);
        int err = req().startError[s];
        if (err != 0) {
            qp.retireSend(idx, STATUS[err - 1], 0);
            qp.enterError(now);
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
            if (qp.state() == QpState.ERR) return n;
        }
    }

    void retire(long idx, WcStatus status, int byteLen, long now) {
        int s = sq.slot(idx);
        WrOpcode op = WrOpcode.of(sq.opcode[s]);
        if (op.writesLocalMemory()) req().rdAtomicOutstanding--;
        if (op == WrOpcode.RDMA_READ) req().readResponsePsns -= sq.packets[s] - 1;
        qp.retireSend(idx, status, byteLen);
        readReceived = 0;
        if (status != WcStatus.SUCCESS) qp.enterError(now);
    }

    /** A response for this requester: checked (sent, not stale), its timestamps heard, then acted on by kind. */
    void onResponse(RxPacket p, long now) {
        int psn = p.psn();
        if (!checkSent(psn, now)) return;
        int o = (p.opcode() & 0x1F);
        if (isStale(p, o, psn)) return;
        if (p.hasAethExt()) feedback.onTimestamps(p, now);
        switch (o) {
            case Opcode.ACKNOWLEDGE -> onAcknowledge(p, psn, now);
            case Opcode.RDMA_READ_RESPONSE_FIRST, Opcode.RDMA_READ_RESPONSE_MIDDLE, Opcode.RDMA_READ_RESPONSE_LAST, Opcode.RDMA_READ_RESPONSE_ONLY -> reads.onResponse(p, o, now);
            case Opcode.ATOMIC_ACKNOWLEDGE -> onAtomicAck(p, now);
            default -> qp.drop(Counter.DROP_BAD_OPCODE, psn, now);
        }
        if (qp.state() != QpState.ERR) retireReady(now);
    }

    /** A response for a PSN never sent is dropped. */
    private boolean checkSent(int psn, long now) {
        if (Psn.before(psn, req().firstUnassignedPsn)) return true;
        qp.drop(Counter.DROP_BAD_OPCODE, psn, now);
        return false;
    }

    /**
     * rxe check_psn: a response before the oldest unacknowledged PSN tells nothing new (a repeat of the last ACK,
     * compPsn - 1, is harmless); acting on it would fail or rewind requests it never answered.
     */
    private boolean isStale(RxPacket p, int o, int psn) {
        boolean nak = o == Opcode.ACKNOWLEDGE && (p.aethSyndrome() & Aeth.SYNDROME_TYPE) != Aeth.SYNDROME_ACK;
        if (!Psn.before(psn, nak ? compPsn : Psn.add(compPsn, -1))) return false;
        qp.counters.increment(Counter.STALE_RESPONSES);
        return true;
    }

    /** An ACKNOWLEDGE: an ACK (with its SACK-ETH in WAN mode), an RNR NAK or a NAK. */
    private void onAcknowledge(RxPacket p, int psn, long now) {
        int syn = p.aethSyndrome();
        switch (syn & Aeth.SYNDROME_TYPE) {
            case Aeth.SYNDROME_ACK -> {
                reads.onAck(psn);
                onAck(psn, now);
                if (!p.hasAethExt()) qp.rate.onAck(req().rttProbe.acked(psn, now), now);
                if (p.hasSack()) {
                    feedback.onLossReport(p.sackLoss(), now);
                    feedback.onSack(p, now);
                }
            }
            case Aeth.SYNDROME_RNR_NAK -> onRnrNak(psn, syn, now);
            case Aeth.SYNDROME_NAK -> onNak(psn, syn, now);
            default -> qp.drop(Counter.DROP_BAD_OPCODE, psn, now);
        }
    }

    private void onAck(int a, long now) {
        ackThrough(a, true, now);
    }

    /**
     * Everything up to and including {@code a} is acknowledged: retire SEND/WRITE WQEs that end there.
     * When {@code implicitNak} and the ACK passes a READ/atomic whose response never came, resend it.
     */
    void ackThrough(int a, boolean implicitNak, long now) {
        int retired = retireAcknowledged(a, implicitNak, now);
        if (retired == FAILED) return;
        boolean moved = advanceCompPsn(a, now);
        if (retired == PROGRESS || moved) onProgress(now);
    }

    /**
     * First stage of {@link #ackThrough}: retires the WQEs at the head that end at or before {@code a}; stops at a READ
     * or atomic still owed its response (resending it on an implicit NAK).
     */
    private int retireAcknowledged(int a, boolean implicitNak, long now) {
        boolean progress = false;
        while (true) {
            long head = sq.retired.get();
            if (head >= req().startedIndex) break;
            int s = sq.slot(head);
            int n = sq.packets[s];
            if (n == 0) {
                retireLocal(head, now);
                if (qp.state() == QpState.ERR) return FAILED;
                continue;
            }
            int first = sq.firstPsn[s];
            WrOpcode op = WrOpcode.of(sq.opcode[s]);
            if (op.writesLocalMemory()) {
                if (op == WrOpcode.RDMA_READ && reads.completeHead(head, s, now)) {
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
        return progress ? PROGRESS : NO_PROGRESS;
    }

    /** Second stage of {@link #ackThrough}: compPsn moves past {@code a}, but not past what the head READ delivered. */
    private boolean advanceCompPsn(int a, long now) {
        int candidate = Psn.add(a, 1);
        long head = sq.retired.get();
        if (head < req().startedIndex) {
            int s = sq.slot(head);
            if (WrOpcode.of(sq.opcode[s]).writesLocalMemory()) {
                int resume = Psn.add(sq.firstPsn[s], readReceived);
                if (Psn.after(candidate, resume)) candidate = resume;
            }
        }
        if (!Psn.after(candidate, compPsn)) return false;
        compPsn = candidate;
        qp.recovery.onAcknowledged(compPsn, now);
        return true;
    }

    void onProgress(long now) {
        retryLeft = qp.retryCnt;
        episodeNaks = 0;
        episodeGaps = 0;
        episodeTimeouts = 0;
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
        if (qp.state() == QpState.ERR) return;
        if (code == Aeth.NAK_PSN_SEQUENCE_ERROR) {
            // behind an RNR NAK the responder NAKs the packets that followed the refused one: the RNR wait already
            // resends from there, so that is no loss and must not spend retry_cnt (one per RNR round would end a slow
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
        if (qp.state() == QpState.ERR) return;
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
        qp.timers.cancelRetry();
        qp.timers.armRnr(now + Timing.rnrNanos(timerCode));
    }

    /**
     * A response at PSN {@code r} acknowledges every request before it; false when that moved the QP to ERR. A response
     * at or after the oldest unacknowledged PSN (the rest of a READ already asked for again, or a later READ's) shows
     * the responder working through a backlog of our requests: rxe restarts its retransmit timer on every response.
     * Timing out here would only queue another copy of the backlog, round after round, until retry_cnt ran out against
     * a slow peer. Older (stale) responses prove nothing and hold nothing off.
     */
    boolean ackBefore(int r, long now) {
        ackThrough(Psn.add(r, -1), false, now);
        if (qp.state() == QpState.ERR) return false;
        if (!Psn.before(r, compPsn) && Psn.before(r, req().firstUnassignedPsn)) lastProgress = now;
        return true;
    }

    private void onAtomicAck(RxPacket p, long now) {
        int r = p.psn();
        if (!ackBefore(r, now)) return;
        long head = sq.retired.get();
        if (head >= req().startedIndex) return;
        int s = sq.slot(head);
        if (!WrOpcode.of(sq.opcode[s]).isAtomic() || sq.firstPsn[s] != r) return; // duplicate or stray
        int base = s * sq.maxSge;
        long addr = sq.sgeAddr[base];
        var mr = qp.device.keys().local(sq.sgeLkey[base], qp.pd, addr, 8, AccessFlags.LOCAL_WRITE);
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
    void startRetry(int psn, LossCause cause, long now) {
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
        switch (cause) {
            case NAK -> episodeNaks++;
            case TIMEOUT -> episodeTimeouts++;
            default -> episodeGaps++;
        }
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
            qp.timers.armRetry(due);
            return;
        }
        qp.counters.increment(Counter.ACK_TIMEOUTS);
        reads.onTimeout(now);
        startRetry(compPsn, LossCause.TIMEOUT, now);
        if (qp.state() == QpState.ERR) return;
        long next = qp.ackTimeoutNanos;
        // WAN (selective): each timeout in a row doubles the next (up to 64 x), as TCP's RTO, so retry_cnt outlasts a
        // path silent for longer than retry_cnt timeouts (a switch stalled under load); a timeout only probes there,
        // so waiting longer costs no resends
        if (qp.recovery.selective()) next <<= Math.min(6, qp.retryCnt - retryLeft);
        qp.timers.armRetry(now + next);
    }

    /** Sequence-error NAKs that started a retry (or found none left) since the last progress. */
    int episodeNaks() {
        return episodeNaks;
    }

    /** Missing READ/atomic responses (implicit NAKs, READ gaps) that started a retry (or found none left) since the last progress. */
    int episodeGaps() {
        return episodeGaps;
    }

    /** ACK timeouts that started a retry (or found none left) since the last progress. */
    int episodeTimeouts() {
        return episodeTimeouts;
    }

    int retryLeft() {
        return retryLeft;
    }
}
