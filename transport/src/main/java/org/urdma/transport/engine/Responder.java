package org.urdma.transport.engine;

import java.nio.ByteBuffer;
import org.agrona.concurrent.UnsafeBuffer;
import org.urdma.transport.counters.Counter;
import org.urdma.transport.memory.MemoryKeyTable;
import org.urdma.transport.memory.RegisteredMemory;
import org.urdma.transport.packet.Payloads;
import org.urdma.transport.packet.RxPacket;
import org.urdma.transport.packet.TxPacket;
import org.urdma.transport.wire.Aeth;
import org.urdma.transport.wire.Opcode;
import org.urdma.transport.wire.OpcodeTable;
import org.urdma.transport.wire.Psn;
import org.urdma.transport.wire.SackEth;
import org.urdma.verbs.AccessFlags;
import org.urdma.verbs.QpType;
import org.urdma.verbs.WcOpcode;
import org.urdma.verbs.WcStatus;
import org.urdma.verbs.WorkCompletion;

/**
 * The responder: checks PSN order, places SEND and WRITE payloads, answers READ and atomics from the
 * responder resources (which also replay duplicates), and sends coalesced ACKs, NAKs and RNR NAKs. Every
 * remote access is checked against the rkey's region (PD, rights, bounds) before a byte moves.
 */
final class Responder {
    private static final int NO_OP = -1;

    private final SoftQp qp;
    private final MemoryKeyTable keys;
    private final RecvQueue recvQ;
    int ePsn;
    private int msn;
    private boolean nakSent;
    /** The sequence NAK for the gap at ePsn is owed but the link had no room: it leaves from {@link #progress}. */
    private boolean nakPending;
    /** PSN of the last out-of-sequence request, to see the requester start a new round. */
    private int lastOutOfSequence;
    private int lastOp = NO_OP;
    private int msgStartPsn;
    // SEND in progress
    /** The receive WQE taken for the message in progress: dequeued at once (an SRQ is shared), kept here. */
    private boolean haveRecv;
    private long recvWrId;
    private int recvNumSge;
    private final long[] recvAddr = new long[16];
    private final int[] recvLen = new int[16];
    private final int[] recvLkey = new int[16];
    private long recvOffset;
    // WRITE in progress
    private RegisteredMemory writeMr;
    private long writeVa;
    private long writeRemaining;
    private long writeTotal;
    // coalesced ACK
    private boolean ackPending;
    private int ackPsn;
    /** Engine pass in which the pending ACK became due; it leaves from a later pass (see {@link #ackDue}). */
    private long ackPass;
    // UC: dropping the rest of a damaged message
    private boolean ucDropping;
    // responder resources for READ / atomic (replay of duplicates)
    private final Resource[] res;
    private int resNext;
    private long resSeq;
    private final UnsafeBuffer grh = new UnsafeBuffer(ByteBuffer.allocateDirect(40));
    long acksSent, ucDiscarded, udDropped;
    // WAN mode (docs/WAN.md): packets placed on arrival in any order, messages completed in PSN order
    /** What arrived past ePsn; null in DC mode. */
    private PsnWindow win;
    /** Receive-consuming messages (SEND, WRITE with immediate) completed: a SEND's R_Key field minus this is its receive. */
    private int headSsn;
    /** One past the highest PSN placed. */
    private int rcvHigh;
    /** Packets placed since the last ACK (the SACK cadence counts them). */
    private int sinceAck;
    /** One-way delay (ns mod 2^32) of the last packet with a timestamp, and its PSN, echoed in the AETH-EXT. */
    private int owd, owdPsn;
    /**
     * Where the next SACK's ranges start when the last one was full: SACKs rotate through the gaps, so a window with
     * more gaps than one SACK-ETH holds has every gap reported within a few SACKs, not only the first MAX_RANGES.
     */
    private int sackResume;
    private final int[] rangeStart = new int[SackEth.MAX_RANGES];
    /** P-FEC: a flow silent this long has no parity coming for its last group; the SACK then lists every gap. */
    static final long FEC_QUIET_NANOS = 200_000;
    /** P-FEC: a gap this far behind the highest PSN is listed even without its group's parity (groups are <= 255). */
    static final int FEC_HOLD_PSNS = 512;
    /** P-FEC: when the last request arrived, and whether the next SACK lists gaps FEC might still repair (the flow went quiet). */
    private long lastArrival;
    private boolean reportAll;
    /** WAN: the loss rate this receiver reports in each SACK-ETH. */
    private final LossMeter lossMeter = new LossMeter();
    private final int[] rangeLength = new int[SackEth.MAX_RANGES];
    /** Repeated SACKs for an unchanged window stop after this many (the last waited up to the ACK timeout). */
    static final int MAX_SACK_REPEATS = 8;
    static final long MAX_SACK_INTERVAL_NANOS = 1_000_000_000L;
    /** Timer repeats with no progress; packets placed (and where ePsn was) when the SACK timer last fired. */
    private int sackRepeats;
    private long placedCount, placedAtSackTimer;
    private int ePsnAtSackTimer;

    private static final class Resource {
        boolean atomic;
        boolean valid;
        int psn;
        int packets;
        RegisteredMemory mr;
        long va;
        int length;
        long orig;
        boolean sending;
        /** Sending only because a duplicate request asked again: may give way to a new request. */
        boolean replay;
        int sendPsn;
        int sendOffset;
        /** Where the answer ends: the READ's length, or less when a WAN requester asked for single packets again. */
        int sendEnd;
        long seq;
    }

    Responder(SoftQp qp) {
        this.qp = qp;
        this.keys = qp.device.keys();
        this.recvQ = qp.srq != null ? qp.srq.rq : qp.rq;
        int n = Math.max(1, qp.device.config().maxRdAtomic());
        res = new Resource[n];
        for (int i = 0; i < n; i++) res[i] = new Resource();
    }

    void start(int psn) {
        ePsn = psn;
        msn = 0;
        nakSent = false;
        nakPending = false;
        lastOp = NO_OP;
        recvOffset = 0;
        haveRecv = false;
        writeMr = null;
        ackPending = false;
        ucDropping = false;
        for (Resource r : res) r.valid = r.sending = false;
        sendingCount = 0;
        // as many PSNs as the sender's window (both ends of a connection share the device window in urdma's setups)
        win = qp.wan() ? new PsnWindow(qp.device.config().window()) : null; // connection setup, not the data path
        headSsn = 0;
        rcvHigh = psn;
        sackResume = psn;
        sinceAck = 0;
        sackRepeats = 0;
        ePsnAtSackTimer = psn;
    }

    /** WAN: whether a request PSN is inside the placement window [ePsn, ePsn + size): only those reach the FEC decoder. */
    boolean inWindow(int psn) {
        return win != null && Psn.diff(psn, ePsn) >= 0 && Psn.diff(psn, ePsn) < win.size();
    }

    /**
     * WAN: whether a P-FEC group starts within a window's size of ePsn, behind or ahead: a real one does (its parity
     * follows its data, and even a group received whole moves where the SACK may list gaps); others are forged.
     */
    boolean groupInWindow(int base) {
        return win != null && Math.abs(Psn.diff(base, ePsn)) < win.size();
    }

    boolean hasPendingWork() {
        return ackPending || nakPending || sendingCount > 0;
    }

    // ---------------------------------------------------------------- receive

    void onRequest(RxPacket p, long now) {
        int svc = (p.opcode() & 0xE0);
        switch (qp.type) {
            case RC -> {
                if (svc != Opcode.TRANSPORT_RC) { qp.drop(Counter.DROP_BAD_OPCODE, p.psn(), now); return; }
                onRc(p, now);
            }
            case UC -> {
                if (svc != Opcode.TRANSPORT_UC) { qp.drop(Counter.DROP_BAD_OPCODE, p.psn(), now); return; }
                onUc(p, now);
            }
            case UD -> {
                if (svc != Opcode.TRANSPORT_UD) { qp.drop(Counter.DROP_BAD_OPCODE, p.psn(), now); return; }
                onUd(p, now);
            }
        }
    }

    private boolean inMessage() {
        return lastOp != NO_OP;
    }

    private void onRc(RxPacket p, long now) {
        if (win != null) {
            onRcWan(p, now);
            return;
        }
        int o = (p.opcode() & 0x1F);
        int d = Psn.diff(p.psn(), ePsn);
        if (d > 0) {
            // one NAK per gap; but PSNs going back mean the requester acted on it and resent, and the resent packet at
            // the gap was lost too: NAK again, or the requester learns of it only from its ACK timeout
            if (!nakSent || !Psn.after(p.psn(), lastOutOfSequence)) {
                if (qp.recovery.discardsPartialMessage() && inMessage()) {
                    ePsn = qp.recovery.expectedAfterGap(ePsn, msgStartPsn);
                    abortPartial();
                }
                nakSent = true;
                sequenceNak(now);
            }
            lastOutOfSequence = p.psn();
            return;
        }
        if (d < 0) {
            duplicate(p, o, now);
            return;
        }
        nakSent = false;
        nakPending = false; // the requester went back on its own (timeout): the NAK owed is moot
        if (!sequenceOk(o) || !sizeOk(o, p.payloadLength())) {
            classC(Aeth.NAK_INVALID_REQUEST, p.psn(), WcStatus.REM_INV_REQ_ERR, now);
            return;
        }
        if (OpcodeTable.has(o, OpcodeTable.START)) msgStartPsn = p.psn();
        if (OpcodeTable.has(o, OpcodeTable.SEND)) {
            if (!onSend(p, o, now, true)) return;
        } else if (OpcodeTable.has(o, OpcodeTable.WRITE)) {
            if (!onWrite(p, o, now, true)) return;
        } else if (o == Opcode.RDMA_READ_REQUEST) {
            onRead(p, now);
            return;
        } else if (o == Opcode.COMPARE_SWAP || o == Opcode.FETCH_ADD) {
            onAtomic(p, o, now);
            return;
        } else {
            classC(Aeth.NAK_INVALID_REQUEST, p.psn(), WcStatus.REM_INV_REQ_ERR, now);
            return;
        }
        ePsn = Psn.add(ePsn, 1);
        lastOp = OpcodeTable.has(o, OpcodeTable.END) ? NO_OP : o;
        if (p.ackReq()) ackDue(p.psn());
    }

    // ---------------------------------------------------------------- WAN mode: out-of-order placement

    private void onRcWan(RxPacket p, long now) {
        int o = (p.opcode() & 0x1F);
        int psn = p.psn();
        int d = Psn.diff(psn, ePsn);
        lastArrival = now;
        if (p.hasTs()) {
            owd = (int) now - p.tsT1();
            owdPsn = psn;
        }
        if (d < 0 || (d < win.size() && win.has(psn))) {
            duplicate(p, o, now);
            advanceWan(now); // a message end held for a receive may complete now
            return;
        }
        if (d >= win.size()) {
            qp.drop(Counter.DROP_NOT_PLACEABLE, psn, now);
            return;
        }
        int f = OpcodeTable.flags(o);
        if ((f & (OpcodeTable.SEND | OpcodeTable.WRITE)) == 0) {
            // READ and atomics act in PSN order: a WRITE before them must have landed first
            boolean known = o == Opcode.RDMA_READ_REQUEST || o == Opcode.COMPARE_SWAP || o == Opcode.FETCH_ADD;
            if (d != 0 && !known) {
                qp.drop(Counter.DROP_AHEAD_INVALID, psn, now); // only the expected PSN is NAK'd: a blind frame ahead is not
                return;
            }
            if (d != 0) {
                qp.drop(Counter.DROP_NOT_PLACEABLE, psn, now);
                if (!Psn.before(psn, rcvHigh)) rcvHigh = Psn.add(psn, 1); // the SACK lists it, and the gap before it
                gap(now);
                return;
            }
            if (o == Opcode.RDMA_READ_REQUEST) {
                onRead(p, now);
            } else if (o == Opcode.COMPARE_SWAP || o == Opcode.FETCH_ADD) {
                onAtomic(p, o, now);
            } else {
                classC(Aeth.NAK_INVALID_REQUEST, psn, WcStatus.REM_INV_REQ_ERR, now);
                return;
            }
            nakSent = false;
            if (Psn.after(ePsn, rcvHigh)) rcvHigh = ePsn;
            advanceWan(now);
            return;
        }
        if ((p.uethFlags() & OpcodeTable.UETH_PER_PACKET_RETH) == 0 || !sizeOk(o, p.payloadLength())) {
            invalidAt(d, Counter.DROP_AHEAD_INVALID, Aeth.NAK_INVALID_REQUEST, psn, WcStatus.REM_INV_REQ_ERR, now);
            return;
        }
        if (!place(p, o, f, d, now)) return;
        if (d > 0) qp.counters.increment(Counter.OUT_OF_ORDER_PLACED);
        if (!Psn.before(psn, rcvHigh)) {
            lossMeter.onAdvance(Psn.diff(psn, rcvHigh));
            rcvHigh = Psn.add(psn, 1);
        }
        advanceWan(now);
        placedCount++;
        if (sackRepeats > 0) { // the window moves again: SACKs at the ACK delay, not at the backed-off wait
            sackRepeats = 0;
            qp.cancelSackTimer();
        }
        if (d > 0) gap(now);
        sinceAck++;
        int every = qp.recovery.ackEvery();
        if (p.ackReq() || (every > 0 && sinceAck >= every)) {
            ackDue(Psn.add(ePsn, -1));
        } else if (qp.recovery.ackDelayNanos() > 0) {
            qp.armSackTimer(now + qp.recovery.ackDelayNanos());
        }
    }

    /** A PSN is missing: a selective peer hears of it in the next SACK; otherwise one NAK per gap (go-back-N). */
    private void gap(long now) {
        if (qp.recovery.selective()) {
            if (qp.recovery.ackDelayNanos() > 0) qp.armSackTimer(now + qp.recovery.ackDelayNanos());
            return;
        }
        if (!nakSent) {
            nakSent = sendAckOrNak(Aeth.SYNDROME_NAK | Aeth.NAK_PSN_SEQUENCE_ERROR, ePsn, now);
            if (nakSent) qp.counters.increment(Counter.OUT_OF_SEQ_REQUEST);
        }
    }

    /**
     * The SACK timer: report what arrived (and what is still missing) at least every T; again while a gap stays, each
     * repeat with nothing placed since waiting twice as long (up to the ACK timeout), and none after
     * {@link #MAX_SACK_REPEATS}: the requester's own timeout covers lost SACKs, as TCP's does, and a gap no one fills
     * (a forged request far ahead) must not keep the link busy.
     */
    void onSackTimer(long now) {
        if (win == null) return;
        boolean gapLeft = Psn.before(ePsn, rcvHigh);
        if (qp.fecRx != null && now - lastArrival >= FEC_QUIET_NANOS) reportAll = true;
        boolean progress = placedCount != placedAtSackTimer || ePsn != ePsnAtSackTimer;
        placedAtSackTimer = placedCount;
        ePsnAtSackTimer = ePsn;
        sackRepeats = progress ? 0 : sackRepeats + 1;
        if (sinceAck > 0 || (gapLeft && sackRepeats <= MAX_SACK_REPEATS)) ackDue(Psn.add(ePsn, -1));
        long delay = qp.recovery.ackDelayNanos();
        if (gapLeft && delay > 0 && sackRepeats < MAX_SACK_REPEATS) qp.armSackTimer(now + sackInterval(delay));
    }

    /** The wait before the next repeated SACK: the ACK delay doubled per repeat, at most the ACK timeout (or 1 s). */
    private long sackInterval(long delay) {
        long cap = Math.max(delay, Math.min(qp.ackTimeoutNanos, MAX_SACK_INTERVAL_NANOS));
        return Math.min(cap, delay << Math.min(sackRepeats, 30));
    }

    /** SACKs the timer repeated with nothing placed and ePsn unmoved since the one before. */
    int sackRepeats() {
        return sackRepeats;
    }

    /**
     * Places a SEND or WRITE packet by its own RETH: a WRITE at its VA after the rkey's bounds and rights check, a SEND
     * into the receive its sequence number names at the offset it carries. False when not placed (error handled, or a
     * receive not posted yet: the peer sends it again when a SACK lists it).
     */
    private boolean place(RxPacket p, int o, int f, int d, long now) {
        int psn = p.psn();
        int len = p.payloadLength();
        boolean end = (f & OpcodeTable.END) != 0;
        boolean imm = (f & OpcodeTable.IMM) != 0;
        long va = p.rethVa();
        long total = p.rethLength() & 0xFFFFFFFFL;
        int se = end && p.solicited() ? PsnWindow.SOLICITED : 0;
        if ((f & OpcodeTable.WRITE) != 0) {
            RegisteredMemory mr = keys.remote(p.rethRkey(), qp.pd, va, len, AccessFlags.REMOTE_WRITE);
            if (mr == null || (qp.accessFlags & AccessFlags.REMOTE_WRITE) == 0) {
                invalidAt(d, Counter.DROP_AHEAD_ACCESS, Aeth.NAK_REMOTE_ACCESS_ERROR, psn, null, now);
                return false;
            }
            if (len > 0) p.payloadTo(0, mr.buffer(), mr.offsetOf(va), len);
            qp.counters.add(Counter.PLACED_BYTES, len);
            win.set(psn, PsnWindow.WRITE | (end ? PsnWindow.END : 0) | (imm ? PsnWindow.IMM : 0) | se, p.immData(), (int) total);
            return true;
        }
        // SEND: VA = offset in the message, R_Key = the message's receive sequence number, DMA length = message length
        if (va < 0 || va + len > total || (end ? va + len != total : va + len >= total)) {
            invalidAt(d, Counter.DROP_AHEAD_INVALID, Aeth.NAK_INVALID_REQUEST, psn, WcStatus.REM_INV_REQ_ERR, now);
            return false;
        }
        int k = p.rethRkey() - headSsn;
        int st;
        if (qp.srq == null) {
            int slot = recvQ.peekAt(k);
            if (slot < 0) return notPlaced(psn, d, now);
            st = Dma.scatter(keys, qp.pd, recvQ.sgeAddr, recvQ.sgeLen, recvQ.sgeLkey, slot * recvQ.maxSge, recvQ.numSge[slot],
                    va, p.payloads(), p.payload(), p.payloadOffset(), len);
        } else {
            // a shared queue's receives belong to whichever QP takes them first: only the next message's is taken
            if (k != 0 || (!haveRecv && !takeRecv())) return notPlaced(psn, d, now);
            st = Dma.scatter(keys, qp.pd, recvAddr, recvLen, recvLkey, 0, recvNumSge, va, p.payloads(), p.payload(),
                    p.payloadOffset(), len);
        }
        if (st != Dma.OK) {
            if (d != 0) { // the receive is failed when the expected PSN fails it, not on a frame ahead anyone could forge
                qp.drop(Counter.DROP_AHEAD_ACCESS, psn, now);
                return false;
            }
            if (k == 0) completeHead(st == Dma.LENGTH ? WcStatus.LOC_LEN_ERR : WcStatus.LOC_PROT_ERR, WcOpcode.RECV, 0, 0, 0, 0, false);
            classC(st == Dma.LENGTH ? Aeth.NAK_INVALID_REQUEST : Aeth.NAK_REMOTE_OPERATIONAL_ERROR, psn, null, now);
            return false;
        }
        qp.counters.add(Counter.PLACED_BYTES, len);
        boolean inv = (f & OpcodeTable.INV) != 0;
        win.set(psn, PsnWindow.SEND | (end ? PsnWindow.END : 0) | (imm ? PsnWindow.IMM : 0) | (inv ? PsnWindow.INV : 0) | se,
                inv ? p.invalidateRkey() : p.immData(), (int) total);
        return true;
    }

    /**
     * A WAN request failing a check: at the expected PSN the spec's NAK and the QP to error (class C); ahead of it
     * dropped and counted under {@code ahead}, as DC mode checks only the expected PSN: a frame ahead may be forged
     * (no key needed to reach the window), and a real one is resent once a SACK lists it, then checked in order.
     */
    private void invalidAt(int d, Counter ahead, int nakCode, int psn, WcStatus recvStatus, long now) {
        if (d != 0) {
            qp.drop(ahead, psn, now);
            return;
        }
        classC(nakCode, psn, recvStatus, now);
    }

    /** A SEND whose receive is not posted: RNR NAK when it is the next message in order, else left for a SACK. */
    private boolean notPlaced(int psn, int d, long now) {
        if (d == 0) {
            sendRnrNak(psn, now);
        } else {
            qp.drop(Counter.DROP_NOT_PLACEABLE, psn, now);
        }
        return false;
    }

    /** Moves ePsn over the PSNs present, completing each message whose last PSN it passes (so in order, and only whole). */
    private void advanceWan(long now) {
        while (win.has(ePsn)) {
            int f = win.flagsOf(ePsn);
            if ((f & PsnWindow.END) != 0 && !completeWan(ePsn, f, now)) return;
            win.clear(ePsn);
            ePsn = Psn.add(ePsn, 1);
            nakSent = false;
            if (qp.state() == org.urdma.verbs.QpState.ERR) return;
        }
    }

    /** Completes the message ending at {@code psn}; false when it waits for a receive (RNR NAK sent). */
    private boolean completeWan(int psn, int f, long now) {
        int aux = win.auxOf(psn);
        int len = win.lengthOf(psn);
        boolean se = (f & PsnWindow.SOLICITED) != 0;
        if ((f & PsnWindow.SEND) != 0) {
            int wcFlags = (f & PsnWindow.IMM) != 0 ? WorkCompletion.WITH_IMM : 0;
            int inv = 0;
            if ((f & PsnWindow.INV) != 0) {
                inv = aux;
                if (!keys.invalidateRkey(inv, qp.pd)) {
                    completeHead(WcStatus.REM_INV_REQ_ERR, WcOpcode.RECV, len, 0, 0, 0, false);
                    classC(Aeth.NAK_INVALID_REQUEST, psn, null, now);
                    return false;
                }
                wcFlags |= WorkCompletion.WITH_INV;
            }
            completeHead(WcStatus.SUCCESS, WcOpcode.RECV, len, (f & PsnWindow.IMM) != 0 ? aux : 0, inv, wcFlags, se);
            qp.counters.increment(Counter.RDMA_RECVS);
        } else if ((f & PsnWindow.IMM) != 0) {
            if (qp.srq == null ? recvQ.peek() < 0 : !haveRecv && !takeRecv()) {
                sendRnrNak(psn, now);
                return false;
            }
            completeHead(WcStatus.SUCCESS, WcOpcode.RECV_RDMA_WITH_IMM, len, aux, 0, WorkCompletion.WITH_IMM, se);
        }
        msn++;
        return true;
    }

    /** Completes the oldest receive (WAN mode: a QP's own receives stay queued until their message completes). */
    private void completeHead(WcStatus st, WcOpcode op, int len, int imm, int inv, int flags, boolean solicited) {
        headSsn++;
        if (qp.srq != null) {
            completeRecv(st, op, len, imm, inv, flags, solicited);
            return;
        }
        int slot = recvQ.peek();
        if (slot < 0) return;
        long wrId = recvQ.wrId[slot];
        recvQ.consume();
        qp.recvCq.push(wrId, st, op, len, imm, inv, qp.qpNum(), qp.destQpn, flags, solicited);
    }

    /**
     * The missing PSN ranges between ePsn (or where the last full SACK stopped) and the highest placed, into
     * rangeStart/rangeLength; returns how many.
     */
    private int missingRanges() {
        int n = 0;
        int high = rcvHigh;
        // P-FEC: gaps in groups whose parity has not come yet may be rebuilt; list them only once the flow is quiet
        if (qp.fecRx != null && !reportAll && Psn.before(qp.fecRx.settledEnd(), high)) {
            // but never more than two largest groups back: a group cut short (a READ's PSN jump) never sends parity
            int settled = qp.fecRx.settledEnd();
            int bound = Psn.add(high, -FEC_HOLD_PSNS);
            high = Psn.after(bound, settled) ? bound : settled;
        }
        reportAll = false;
        int p = Psn.after(sackResume, ePsn) && Psn.before(sackResume, high) ? sackResume : ePsn;
        while (n < rangeStart.length && Psn.before(p, high)) {
            int limit = Psn.diff(high, p);
            int present = win.next(p, true, limit);
            if (present == p) {
                p = win.next(p, false, limit);
                continue;
            }
            int len = Psn.diff(present, p);
            while (len > 0 && n < rangeStart.length) {
                int l = Math.min(255, len);
                rangeStart[n] = p;
                rangeLength[n] = l;
                n++;
                p = Psn.add(p, l);
                len -= l;
            }
            if (len > 0) break; // full inside a long gap: the next SACK resumes at p
            p = present;
        }
        sackResume = n == rangeStart.length ? p : ePsn;
        return n;
    }

    private boolean sequenceOk(int o) {
        if (lastOp == NO_OP) return OpcodeTable.has(o, OpcodeTable.START);
        if (OpcodeTable.has(lastOp, OpcodeTable.SEND)) return OpcodeTable.has(o, OpcodeTable.SEND) && !OpcodeTable.has(o, OpcodeTable.START);
        if (OpcodeTable.has(lastOp, OpcodeTable.WRITE)) return OpcodeTable.has(o, OpcodeTable.WRITE) && !OpcodeTable.has(o, OpcodeTable.START);
        return false;
    }

    private boolean sizeOk(int o, int len) {
        if ((OpcodeTable.flags(o) & (OpcodeTable.END | OpcodeTable.PAYLOAD)) == OpcodeTable.PAYLOAD) return len == qp.mtu;
        return len <= qp.mtu;
    }

    private void abortPartial() {
        lastOp = NO_OP;
        recvOffset = 0; // the claimed receive WQE is kept for the retransmitted message
        writeMr = null;
    }

    /** SEND packet in sequence. Returns false when it was not accepted (RNR, error). */
    private boolean onSend(RxPacket p, int o, long now, boolean reliable) {
        if (OpcodeTable.has(o, OpcodeTable.START)) {
            if (!haveRecv) {
                if (!takeRecv()) {
                    if (reliable) sendRnrNak(p.psn(), now);
                    else ucDropping = true;
                    return false;
                }
            }
            recvOffset = 0;
        }
        int st = Dma.scatter(keys, qp.pd, recvAddr, recvLen, recvLkey, 0, recvNumSge,
                recvOffset, p.payloads(), p.payload(), p.payloadOffset(), p.payloadLength());
        if (st != Dma.OK) {
            WcStatus local = st == Dma.LENGTH ? WcStatus.LOC_LEN_ERR : WcStatus.LOC_PROT_ERR;
            if (reliable) {
                completeRecv(local, WcOpcode.RECV, 0, 0, 0, 0, false);
                classC(st == Dma.LENGTH ? Aeth.NAK_INVALID_REQUEST : Aeth.NAK_REMOTE_OPERATIONAL_ERROR, p.psn(), null, now);
            } else {
                ucDropping = true;
                completeRecv(local, WcOpcode.RECV, 0, 0, 0, 0, false);
                qp.enterError(now);
            }
            return false;
        }
        qp.counters.add(Counter.PLACED_BYTES, p.payloadLength());
        recvOffset += p.payloadLength();
        if (OpcodeTable.has(o, OpcodeTable.END)) {
            int flags = 0;
            int inv = 0;
            if (OpcodeTable.has(o, OpcodeTable.IMM)) flags |= WorkCompletion.WITH_IMM;
            if (OpcodeTable.has(o, OpcodeTable.INV)) {
                inv = p.invalidateRkey();
                if (!keys.invalidateRkey(inv, qp.pd)) {
                    completeRecv(WcStatus.REM_INV_REQ_ERR, WcOpcode.RECV, (int) recvOffset, 0, 0, 0, false);
                    if (reliable) classC(Aeth.NAK_INVALID_REQUEST, p.psn(), null, now);
                    return false;
                }
                flags |= WorkCompletion.WITH_INV;
            }
            completeRecv(WcStatus.SUCCESS, WcOpcode.RECV, (int) recvOffset, p.immData(), inv, flags, p.solicited());
            msn++;
            qp.counters.increment(Counter.RDMA_RECVS);
        }
        return true;
    }

    /** Dequeues the next receive into this responder; false when none is posted. */
    private boolean takeRecv() {
        int slot = recvQ.peek();
        if (slot < 0) return false;
        recvWrId = recvQ.wrId[slot];
        recvNumSge = recvQ.numSge[slot];
        int base = slot * recvQ.maxSge;
        // a loop, not three arraycopy calls: a receive has one or two SGEs, and a call costs more than the copy
        for (int i = 0; i < recvNumSge; i++) {
            recvAddr[i] = recvQ.sgeAddr[base + i];
            recvLen[i] = recvQ.sgeLen[base + i];
            recvLkey[i] = recvQ.sgeLkey[base + i];
        }
        recvQ.consume();
        haveRecv = true;
        recvOffset = 0;
        if (qp.srq != null) qp.srq.afterConsume();
        return true;
    }

    private void completeRecv(WcStatus st, WcOpcode op, int len, int imm, int inv, int flags, boolean solicited) {
        if (!haveRecv) return;
        haveRecv = false;
        recvOffset = 0;
        qp.recvCq.push(recvWrId, st, op, len, imm, inv, qp.qpNum(), qp.destQpn, flags, solicited);
    }

    /** ERR: a receive taken for a message that never finished is flushed with the rest. */
    void flushTaken() {
        if (haveRecv) completeRecv(WcStatus.WR_FLUSH_ERR, WcOpcode.RECV, 0, 0, 0, 0, false);
    }

    /** WRITE packet in sequence; false when not accepted. */
    private boolean onWrite(RxPacket p, int o, long now, boolean reliable) {
        if (OpcodeTable.has(o, OpcodeTable.IMM) && !haveRecv && recvQ.peek() < 0) { // need a receive for the immediate before placing anything
            if (reliable) sendRnrNak(p.psn(), now);
            else ucDropping = true;
            return false;
        }
        if (o == Opcode.RDMA_WRITE_FIRST || o == Opcode.RDMA_WRITE_ONLY || o == Opcode.RDMA_WRITE_ONLY_WITH_IMM) {
            RegisteredMemory mr = keys.remote(p.rethRkey(), qp.pd, p.rethVa(), p.rethLength() & 0xFFFFFFFFL, AccessFlags.REMOTE_WRITE);
            if (mr == null || (qp.accessFlags & AccessFlags.REMOTE_WRITE) == 0) {
                if (reliable) classC(Aeth.NAK_REMOTE_ACCESS_ERROR, p.psn(), null, now);
                else ucDropping = true;
                return false;
            }
            writeMr = mr;
            writeVa = p.rethVa();
            writeRemaining = p.rethLength() & 0xFFFFFFFFL;
            writeTotal = writeRemaining;
        }
        int len = p.payloadLength();
        boolean end = OpcodeTable.has(o, OpcodeTable.END);
        if (writeMr == null || len > writeRemaining || (end && len != writeRemaining)) {
            if (reliable) classC(Aeth.NAK_INVALID_REQUEST, p.psn(), null, now);
            else ucDropping = true;
            return false;
        }
        if (len > 0) p.payloadTo(0, writeMr.buffer(), writeMr.offsetOf(writeVa), len);
        qp.counters.add(Counter.PLACED_BYTES, len);
        writeVa += len;
        writeRemaining -= len;
        if (end) {
            if (OpcodeTable.has(o, OpcodeTable.IMM)) {
                if (!haveRecv) takeRecv();
                completeRecv(WcStatus.SUCCESS, WcOpcode.RECV_RDMA_WITH_IMM, (int) writeTotal, p.immData(), 0,
                        WorkCompletion.WITH_IMM, p.solicited());
            }
            writeMr = null;
            msn++;
        }
        return true;
    }

    private void onRead(RxPacket p, long now) {
        long len = p.rethLength() & 0xFFFFFFFFL;
        RegisteredMemory mr = keys.remote(p.rethRkey(), qp.pd, p.rethVa(), len, AccessFlags.REMOTE_READ);
        if (mr == null || (qp.accessFlags & AccessFlags.REMOTE_READ) == 0) {
            classC(Aeth.NAK_REMOTE_ACCESS_ERROR, p.psn(), null, now);
            return;
        }
        Resource r = allocResource();
        if (r == null) {
            classC(Aeth.NAK_INVALID_REQUEST, p.psn(), null, now);
            return;
        }
        flushAck(now);
        int packets = (int) Math.max(1, (len + qp.mtu - 1) / qp.mtu);
        r.atomic = false;
        r.psn = p.psn();
        r.packets = packets;
        r.mr = mr;
        r.va = p.rethVa();
        r.length = (int) len;
        markSending(r);
        r.sendPsn = p.psn();
        r.sendOffset = 0;
        r.sendEnd = (int) len;
        r.seq = resSeq++;
        ePsn = Psn.add(ePsn, packets);
        lastOp = NO_OP;
        msn++;
    }

    private void onAtomic(RxPacket p, int o, long now) {
        RegisteredMemory mr = keys.remote(p.atomicRkey(), qp.pd, p.atomicVa(), 8, AccessFlags.REMOTE_ATOMIC);
        if (mr == null || (qp.accessFlags & AccessFlags.REMOTE_ATOMIC) == 0) {
            classC(Aeth.NAK_REMOTE_ACCESS_ERROR, p.psn(), null, now);
            return;
        }
        if ((p.atomicVa() & 7) != 0) { // IBTA: atomics need 8-byte alignment (rxe: invalid request)
            classC(Aeth.NAK_INVALID_REQUEST, p.psn(), null, now);
            return;
        }
        Resource r = allocResource();
        if (r == null) {
            classC(Aeth.NAK_INVALID_REQUEST, p.psn(), null, now);
            return;
        }
        int off = mr.offsetOf(p.atomicVa());
        long orig;
        if (o == Opcode.COMPARE_SWAP) {
            orig = mr.buffer().getLongVolatile(off);
            if (orig == p.atomicCompare()) mr.buffer().putLongVolatile(off, p.atomicSwapAdd());
        } else {
            orig = mr.buffer().getAndAddLong(off, p.atomicSwapAdd());
        }
        flushAck(now);
        r.atomic = true;
        r.psn = p.psn();
        r.packets = 1;
        r.orig = orig;
        markSending(r); // the ATOMIC ACKNOWLEDGE goes out from progress()
        r.seq = resSeq++;
        ePsn = Psn.add(ePsn, 1);
        lastOp = NO_OP;
        msn++;
    }

    private Resource allocResource() {
        int n = Math.min(res.length, qp.maxDestRdAtomic);
        for (int pass = 0; pass < 2; pass++) {
            for (int i = 0; i < n; i++) {
                Resource r = res[(resNext + i) % n];
                // first pass: an idle slot; second: one only replaying a duplicate (the requester resends if it needs it)
                if (!r.sending || (pass == 1 && r.replay)) {
                    resNext = (resNext + i + 1) % n;
                    r.valid = true;
                    r.replay = false;
                    return r;
                }
            }
        }
        return null; // more outstanding READ/atomics than max_dest_rd_atomic
    }

    private void duplicate(RxPacket p, int o, long now) {
        qp.counters.increment(Counter.DUPLICATE_REQUEST);
        if (o == Opcode.RDMA_READ_REQUEST || o == Opcode.COMPARE_SWAP || o == Opcode.FETCH_ADD) {
            for (Resource r : res) {
                if (!r.valid) continue;
                if (r.atomic && o != Opcode.RDMA_READ_REQUEST && r.psn == p.psn()) {
                    if (!r.sending) r.replay = true;
                    markSending(r); // replay the stored result, do not execute again
                    return;
                }
                if (!r.atomic && o == Opcode.RDMA_READ_REQUEST && Psn.atOrAfter(p.psn(), r.psn)
                        && Psn.before(p.psn(), Psn.add(r.psn, r.packets))) {
                    if (win != null && (p.rethLength() & 0xFFFFFFFFL) <= qp.mtu) {
                        // a WAN requester asks again for single packets, many at once: answer each at once rather than
                        // move the resource's one cursor (the next ask would move it again before this one was answered)
                        if (r.mr.isValid()) emitReadResponse(r, Psn.diff(p.psn(), r.psn) * qp.mtu, p.psn(), qp.mtu, now);
                        return;
                    }
                    if (!r.sending) r.replay = true;
                    markSending(r);
                    r.sendPsn = p.psn();
                    r.sendOffset = Psn.diff(p.psn(), r.psn) * qp.mtu; // keeps its place: responses go out in PSN order
                    // a WAN requester asks again for just the packets it misses
                    r.sendEnd = win == null ? r.length : (int) Math.min(r.length, r.sendOffset + (p.rethLength() & 0xFFFFFFFFL));
                    return;
                }
            }
            return; // too old: the resource was reused
        }
        if (sendingCount > 0) {
            for (Resource r : res) if (r.sending && !r.atomic) return; // READ responses in flight carry the ACK
        }
        ackDue(Psn.add(ePsn, -1));
    }

    /**
     * Coalesced ACK: it leaves in the first engine pass after the one that received the packet, ahead of the requests
     * this QP sends in that pass. With an inline driver the application sees the receive completion between the two
     * passes, so a reply it posts at once shares the ACK's syscall (one kernel send per direction of a ping-pong
     * instead of two). Later packets join the pending ACK.
     */
    private void ackDue(int psn) {
        if (!ackPending) {
            ackPending = true;
            ackPass = qp.device.passes();
        }
        ackPsn = psn;
    }

    /** Class C/D error: NAK the request, fail any receive in progress, and move the QP to ERR (as rxe). */
    private void classC(int nakCode, int psn, WcStatus recvStatus, long now) {
        sendAckOrNak(Aeth.SYNDROME_NAK | nakCode, psn, now);
        if (recvStatus != null && haveRecv) completeRecv(recvStatus, WcOpcode.RECV, 0, 0, 0, 0, false);
        qp.enterError(now);
    }

    /**
     * NAKs the gap at ePsn now, or, when the link has no room (a TX queue full of READ responses), from the next
     * {@link #progress}: waiting for the next out-of-sequence packet could cost the requester an ACK timeout, as
     * it sends none once its window is out.
     */
    private void sequenceNak(long now) {
        nakPending = !sendAckOrNak(Aeth.SYNDROME_NAK | Aeth.NAK_PSN_SEQUENCE_ERROR, ePsn, now);
        // counted once per NAK'd gap (or new round at it), as rxe counts out_of_seq_request
        if (!nakPending) qp.counters.increment(Counter.OUT_OF_SEQ_REQUEST);
    }

    private void sendRnrNak(int psn, long now) {
        sendAckOrNak(Aeth.SYNDROME_RNR_NAK | (qp.minRnrTimer & 0x1F), psn, now);
    }

    private void flushAck(long now) {
        if (ackPending && sendAckOrNak(Aeth.SYNDROME_ACK | Aeth.CREDITS_INVALID, ackPsn, now)) {
            ackPending = false;
            // a full SACK-ETH: the gaps past it follow at once in up to 3 more (not one ACK delay later each)
            for (int i = 0; i < 3 && win != null && sackResume != ePsn; i++) {
                if (!sendAckOrNak(Aeth.SYNDROME_ACK | Aeth.CREDITS_INVALID, ackPsn, now)) break;
            }
        }
    }

    private boolean sendAckOrNak(int syndrome, int psn, long now) {
        if (win != null) return sendWanAck(syndrome, psn, now);
        TxPacket t = qp.claim(Opcode.RC_ACKNOWLEDGE, 0, qp.route, now);
        if (t == null) return false;
        t.start(Opcode.RC_ACKNOWLEDGE, qp.destQpn, psn, false, false).aeth(syndrome, msn & 0xFFFFFF);
        qp.commit(t, qp.route, now);
        afterAck(syndrome, psn, now);
        return true;
    }

    /**
     * WAN mode: the ACK (or NAK) with UETH, TS and AETH-EXT (this ACK's time, the one-way delay of the last timestamped
     * packet and its PSN), and with SACK a SACK-ETH: cumulative PSN ePsn and the ranges still missing up to the highest
     * PSN placed.
     */
    private boolean sendWanAck(int syndrome, int psn, long now) {
        int flags = qp.uethFlags;
        boolean sack = (flags & OpcodeTable.UETH_SACK) != 0;
        int ranges = sack && (syndrome & Aeth.SYNDROME_TYPE) == Aeth.SYNDROME_ACK ? missingRanges() : 0;
        TxPacket t = qp.claimAck(ranges, now);
        if (t == null) return false;
        t.start(Opcode.RC_ACKNOWLEDGE, qp.destQpn, psn, false, false, flags, ranges).aeth(syndrome, msn & 0xFFFFFF);
        if ((flags & OpcodeTable.UETH_TS) != 0) t.ts((int) now, 0).aethExt((int) now, owd, owdPsn);
        if (sack) {
            t.sack(ranges, ePsn).sackLoss(lossMeter.report());
            for (int i = 0; i < ranges; i++) t.sackRange(i, rangeStart[i], rangeLength[i]);
        }
        qp.commit(t, qp.route, now);
        sinceAck = 0;
        if (ranges > 0) qp.counters.increment(Counter.SACKS_SENT);
        afterAck(syndrome, psn, now);
        return true;
    }

    private void afterAck(int syndrome, int psn, long now) {
        switch (syndrome & Aeth.SYNDROME_TYPE) {
            case Aeth.SYNDROME_NAK -> {
                qp.counters.increment(Counter.NAKS_SENT);
                qp.journal.nakSent(now, qp.qpNum(), psn, syndrome);
            }
            case Aeth.SYNDROME_RNR_NAK -> {
                qp.counters.increment(Counter.SEND_RNR_ERR);
                qp.counters.increment(Counter.RNR_NAKS_SENT);
                qp.journal.rnrNakSent(now, qp.qpNum(), psn, syndrome);
            }
            case Aeth.SYNDROME_ACK -> acksSent++;
            default -> { }
        }
    }

    // ---------------------------------------------------------------- UC

    private void onUc(RxPacket p, long now) {
        int o = (p.opcode() & 0x1F);
        if (p.psn() != ePsn) { // a packet was lost (or repeated): drop the message in progress
            if (inMessage()) {
                ucDiscarded++;
                abortPartial();
            }
            if (!OpcodeTable.has(o, OpcodeTable.START)) {
                ucDropping = true;
                ePsn = Psn.add(p.psn(), 1);
                return;
            }
            ucDropping = false;
            ePsn = p.psn();
        }
        ePsn = Psn.add(ePsn, 1);
        if (ucDropping) {
            if (!OpcodeTable.has(o, OpcodeTable.START)) return;
            ucDropping = false;
        }
        if (!sequenceOk(o) || !sizeOk(o, p.payloadLength()) || !(OpcodeTable.has(o, OpcodeTable.SEND) || OpcodeTable.has(o, OpcodeTable.WRITE))) {
            if (inMessage()) ucDiscarded++;
            abortPartial();
            ucDropping = !OpcodeTable.has(o, OpcodeTable.END);
            return;
        }
        boolean ok = OpcodeTable.has(o, OpcodeTable.SEND) ? onSend(p, o, now, false) : onWrite(p, o, now, false);
        if (!ok) {
            ucDiscarded++;
            abortPartial();
            ucDropping = !OpcodeTable.has(o, OpcodeTable.END);
            return;
        }
        lastOp = OpcodeTable.has(o, OpcodeTable.END) ? NO_OP : o;
    }

    // ---------------------------------------------------------------- UD

    private void onUd(RxPacket p, long now) {
        int o = (p.opcode() & 0x1F);
        if (o != Opcode.SEND_ONLY && o != Opcode.SEND_ONLY_WITH_IMM) {
            qp.drop(Counter.DROP_BAD_OPCODE, p.psn(), now);
            return;
        }
        if (p.qkey() != qp.qkey) { // Q_Key violation: silently dropped, as the spec says
            qp.drop(Counter.DROP_QKEY, p.psn(), now);
            return;
        }
        if (!haveRecv && !takeRecv()) {
            udDropped++;
            return;
        }
        // 40-byte GRH space first, as verbs deliver UD receives
        grh.setMemory(0, 40, (byte) 0);
        grh.putByte(0, (byte) (0x60 | ((p.trafficClass() >> 4) & 0x0F)));
        grh.putByte(1, (byte) (((p.trafficClass() & 0x0F) << 4) | ((p.flowLabel() >> 16) & 0x0F)));
        grh.putShort(2, (short) p.flowLabel(), java.nio.ByteOrder.BIG_ENDIAN);
        grh.putShort(4, (short) (p.payloadLength() + 12 + 8 + 4), java.nio.ByteOrder.BIG_ENDIAN);
        grh.putByte(6, (byte) 0x1B);
        grh.putByte(7, (byte) p.hopLimit());
        grh.putLong(8, p.srcGidHi(), java.nio.ByteOrder.BIG_ENDIAN);
        grh.putLong(16, p.srcGidLo(), java.nio.ByteOrder.BIG_ENDIAN);
        grh.putLong(24, p.dstGidHi(), java.nio.ByteOrder.BIG_ENDIAN);
        grh.putLong(32, p.dstGidLo(), java.nio.ByteOrder.BIG_ENDIAN);
        int st = Dma.scatter(keys, qp.pd, recvAddr, recvLen, recvLkey, 0, recvNumSge, 0, Payloads.COPY, grh, 0, 40);
        if (st == Dma.OK) {
            st = Dma.scatter(keys, qp.pd, recvAddr, recvLen, recvLkey, 0, recvNumSge, 40, p.payloads(),
                    p.payload(), p.payloadOffset(), p.payloadLength());
        }
        if (st != Dma.OK) {
            completeRecv(st == Dma.LENGTH ? WcStatus.LOC_LEN_ERR : WcStatus.LOC_PROT_ERR, WcOpcode.RECV, 0, 0, 0, 0, false);
            return;
        }
        int flags = WorkCompletion.GRH | (o == Opcode.SEND_ONLY_WITH_IMM ? WorkCompletion.WITH_IMM : 0);
        haveRecv = false;
        qp.recvCq.push(recvWrId, WcStatus.SUCCESS, WcOpcode.RECV, 40 + p.payloadLength(), p.immData(), 0,
                qp.qpNum(), p.srcQp(), flags, p.solicited());
        qp.counters.increment(Counter.RDMA_RECVS);
    }

    // ---------------------------------------------------------------- transmit

    /** Sends the coalesced ACK and READ responses / atomic ACKs; returns packets sent. */
    int progress(long now) {
        if (qp.type != QpType.RC) return 0;
        int sent = 0;
        int burst = qp.device.config().txBurst();
        if (nakPending) { // ahead of READ responses, as when it leaves at once on the out-of-sequence packet
            sequenceNak(now);
            if (nakPending) return 0;
            sent++;
        }
        Resource r = null;
        while (sent < burst) {
            r = nextSending();
            if (r == null) break;
            if (!sendResponse(r, now)) break;
            sent++;
        }
        // Responses leave in PSN order: a coalesced ACK for a later request waits until the READ responses
        // and atomic ACKs before it are out, or the requester would take it as an implicit NAK of the READ.
        if (ackPending && ackPass != qp.device.passes() && nextSending() == null) {
            flushAck(now);
            if (!ackPending) sent++;
        }
        return sent;
    }

    /** Resources with responses to send: progress() asks on every visit, and mostly none has any. */
    private int sendingCount;

    private void markSending(Resource r) {
        if (!r.sending) {
            r.sending = true;
            sendingCount++;
        }
    }

    private void unmarkSending(Resource r) {
        if (r.sending) {
            r.sending = false;
            sendingCount--;
        }
    }

    private Resource nextSending() {
        if (sendingCount == 0) return null;
        Resource best = null;
        for (Resource r : res) {
            if (r.sending && (best == null || r.seq < best.seq)) best = r;
        }
        return best;
    }

    private boolean sendResponse(Resource r, long now) {
        int syndrome = Aeth.SYNDROME_ACK | Aeth.CREDITS_INVALID;
        if (r.atomic) {
            TxPacket t = qp.claim(Opcode.RC_ATOMIC_ACKNOWLEDGE, 0, qp.route, now);
            if (t == null) return false;
            t.start(Opcode.RC_ATOMIC_ACKNOWLEDGE, qp.destQpn, r.psn, false, false, qp.uethFlags, 0).aeth(syndrome, msn & 0xFFFFFF).atomicAck(r.orig);
            if ((qp.uethFlags & OpcodeTable.UETH_TS) != 0) t.ts((int) now, 0).aethExt((int) now, owd, owdPsn);
            qp.commit(t, qp.route, now);
            unmarkSending(r);
            return true;
        }
        if (!r.mr.isValid()) { // deregistered while answering: stop, the requester will time out
            unmarkSending(r);
            return true;
        }
        int len = Math.min(qp.mtu, r.length - r.sendOffset);
        boolean last = r.sendOffset + len >= r.length;
        boolean stop = r.sendOffset + len >= r.sendEnd;
        if (!emitReadResponse(r, r.sendOffset, r.sendPsn, r.sendEnd - r.sendOffset, now)) return false;
        r.sendOffset += len;
        r.sendPsn = Psn.add(r.sendPsn, 1);
        if (last || stop) unmarkSending(r);
        return true;
    }

    /** Sends the READ response packet of {@code r} at {@code offset} with {@code psn}; false on back-pressure. */
    private boolean emitReadResponse(Resource r, int offset, int psn, int atMost, long now) {
        int syndrome = Aeth.SYNDROME_ACK | Aeth.CREDITS_INVALID;
        int len = Math.min(Math.min(qp.mtu, atMost), r.length - offset);
        boolean first = offset == 0;
        boolean last = offset + len >= r.length;
        int opcode = first && last ? Opcode.RC_RDMA_READ_RESPONSE_ONLY : first ? Opcode.RC_RDMA_READ_RESPONSE_FIRST
                : last ? Opcode.RC_RDMA_READ_RESPONSE_LAST : Opcode.RC_RDMA_READ_RESPONSE_MIDDLE;
        TxPacket t = qp.claim(opcode, len, qp.route, now);
        if (t == null) return false;
        int flags = qp.uethFlags;
        t.start(opcode, qp.destQpn, psn, false, false, flags, 0);
        boolean aeth = (OpcodeTable.mask(opcode) & OpcodeTable.HDR_AETH) != 0; // MIDDLE has none
        if (aeth) t.aeth(syndrome, msn & 0xFFFFFF);
        if ((flags & OpcodeTable.UETH_PER_PACKET_RETH) != 0) t.reth(r.va + offset, 0, r.length); // the VA of its own bytes
        if ((flags & OpcodeTable.UETH_TS) != 0) {
            t.ts((int) now, 0);
            if (aeth) t.aethExt((int) now, owd, owdPsn);
        }
        t.payload(r.mr.buffer(), r.mr.offsetOf(r.va + offset), len);
        qp.commit(t, qp.route, now);
        return true;
    }
}
