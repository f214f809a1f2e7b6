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
    /** READ response packets received for the WQE at the head. */
    private int readReceived;
    private int lastOutOfSequence;
    long implicitNaks, readGaps;
    /** Responses older than the oldest unacknowledged PSN (late, duplicated or forged), ignored. */
    long stale;

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
    }

    private Requester req() {
        return qp.requester;
    }

    private boolean outstanding() {
        return sq.retired.get() != req().startedIndex;
    }

    /** A packet went out: make sure the ACK timer runs. */
    void onSent(long now) {
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
            return;
        }
        switch (o) {
            case Opcode.ACKNOWLEDGE -> {
                int syn = p.aethSyndrome();
                switch (syn & Aeth.SYNDROME_TYPE) {
                    case Aeth.SYNDROME_ACK -> onAck(psn, now);
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
        }
        if (progress) onProgress(now);
    }

    private void onProgress(long now) {
        retryLeft = qp.retryCnt;
        rnrLeft = qp.rnrRetry;
        retrying = false;
        lastProgress = now;
        if (!outstanding()) qp.cancelRetryTimer();
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
        int r = p.psn();
        ackThrough(Psn.add(r, -1), false, now);
        if (qp.state() == org.urdma.verbs.QpState.ERR) return;
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
        readReceived++;
        compPsn = Psn.add(r, 1);
        if (lastPkt) retire(head, WcStatus.SUCCESS, total, now);
        onProgress(now);
    }

    private void onAtomicAck(RxPacket p, long now) {
        int r = p.psn();
        ackThrough(Psn.add(r, -1), false, now);
        if (qp.state() == org.urdma.verbs.QpState.ERR) return;
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
        startRetry(compPsn, LossCause.TIMEOUT, now);
        if (qp.state() != org.urdma.verbs.QpState.ERR) qp.armRetryTimer(now + qp.ackTimeoutNanos);
    }

    int retryLeft() {
        return retryLeft;
    }
}
