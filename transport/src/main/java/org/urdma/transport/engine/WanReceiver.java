package org.urdma.transport.engine;

import org.urdma.transport.counters.Counter;
import org.urdma.transport.memory.MemoryKeyTable;
import org.urdma.transport.memory.RegisteredMemory;
import org.urdma.transport.packet.RxPacket;
import org.urdma.transport.packet.TxPacket;
import org.urdma.transport.wire.Aeth;
import org.urdma.transport.wire.Opcode;
import org.urdma.transport.wire.OpcodeTable;
import org.urdma.transport.wire.Psn;
import org.urdma.verbs.AccessFlags;
import org.urdma.verbs.QpState;
import org.urdma.verbs.WcOpcode;
import org.urdma.verbs.WcStatus;
import org.urdma.verbs.WorkCompletion;

/**
 * The WAN-mode RC receiver (docs/WAN.md): SEND and WRITE packets are placed on arrival in any order by their own
 * RETH, messages complete in PSN order, and ACKs carry UETH, TS, AETH-EXT and a SACK-ETH listing what is missing.
 */
final class WanReceiver implements RcReceiver {
    private final Responder resp;
    private final SoftQp qp;
    private final MemoryKeyTable keys;
    private final RecvQueue recvQ;
    private final TakenRecv recv;
    /** What arrived past ePsn. */
    private PsnWindow win;
    /** Receive-consuming messages (SEND, WRITE with immediate) completed: a SEND's R_Key field minus this is its receive. */
    private int headSsn;
    /** One past the highest PSN placed. */
    private int rcvHigh;
    /** Packets placed since the last ACK (the SACK cadence counts them). */
    private int sinceAck;
    private final SackRanges sacks = new SackRanges();
    /** The loss rate this receiver reports in each SACK-ETH. */
    private final LossMeter lossMeter = new LossMeter();
    /** Repeated SACKs for an unchanged window stop after this many (the last waited up to the ACK timeout). */
    static final int MAX_SACK_REPEATS = 8;
    static final long MAX_SACK_INTERVAL_NANOS = 1_000_000_000L;
    /** Timer repeats with no progress; packets placed (and where ePsn was) when the SACK timer last fired. */
    private int sackRepeats;
    private long placedCount, placedAtSackTimer;
    private int ePsnAtSackTimer;

    WanReceiver(Responder resp, SoftQp qp) {
        this.resp = resp;
        this.qp = qp;
        this.keys = resp.keys;
        this.recvQ = resp.recvQ;
        this.recv = resp.recv;
    }

    void start(int psn) {
        // as many PSNs as the sender's window (both ends of a connection share the device window in urdma's setups)
        win = new PsnWindow(qp.device.config().window()); // connection setup, not the data path
        headSsn = 0;
        rcvHigh = psn;
        sacks.start(psn);
        sinceAck = 0;
        sackRepeats = 0;
        ePsnAtSackTimer = psn;
    }

    @Override
    public void onRequest(RxPacket p, long now) {
        int o = (p.opcode() & 0x1F);
        int psn = p.psn();
        int d = Psn.diff(psn, resp.ePsn);
        sacks.onArrival(now);
        if (d < 0 || (d < win.size() && win.has(psn))) {
            resp.res.duplicate(p, o, now);
            advance(now); // a message end held for a receive may complete now
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
                if (!accessOk(p, o)) { // a blind one must not open a gap to a PSN no one sent
                    qp.drop(Counter.DROP_AHEAD_ACCESS, psn, now);
                    return;
                }
                qp.drop(Counter.DROP_NOT_PLACEABLE, psn, now);
                accepted(p, now);
                if (!Psn.before(psn, rcvHigh)) rcvHigh = Psn.add(psn, 1); // the SACK lists it, and the gap before it
                gap(now);
                return;
            }
            if (o == Opcode.RDMA_READ_REQUEST) {
                resp.res.onRead(p, now);
            } else if (o == Opcode.COMPARE_SWAP || o == Opcode.FETCH_ADD) {
                resp.res.onAtomic(p, o, now);
            } else {
                resp.classC(Aeth.NAK_INVALID_REQUEST, psn, WcStatus.REM_INV_REQ_ERR, now);
                return;
            }
            if (qp.state() != QpState.ERR) accepted(p, now);
            resp.nakSent = false;
            if (Psn.after(resp.ePsn, rcvHigh)) rcvHigh = resp.ePsn;
            advance(now);
            return;
        }
        if ((p.uethFlags() & OpcodeTable.UETH_PER_PACKET_RETH) == 0 || !resp.lengthOk(o, p.payloadLength())) {
            invalidAt(d, Counter.DROP_AHEAD_INVALID, Aeth.NAK_INVALID_REQUEST, psn, WcStatus.REM_INV_REQ_ERR, now);
            return;
        }
        if (!place(p, o, f, d, now)) return;
        accepted(p, now);
        if (d > 0) qp.counters.increment(Counter.OUT_OF_ORDER_PLACED);
        if (!Psn.before(psn, rcvHigh)) {
            lossMeter.onAdvance(Psn.diff(psn, rcvHigh));
            rcvHigh = Psn.add(psn, 1);
        }
        advance(now);
        placedCount++;
        if (sackRepeats > 0) { // the window moves again: SACKs at the ACK delay, not at the backed-off wait
            sackRepeats = 0;
            qp.timers.cancelSack();
        }
        if (d > 0) gap(now);
        sinceAck++;
        int every = qp.recovery.ackEvery();
        if (p.ackReq() || (every > 0 && sinceAck >= every)) {
            resp.ackDue(Psn.add(resp.ePsn, -1));
        } else if (qp.recovery.ackDelayNanos() > 0) {
            qp.timers.armSack(now + qp.recovery.ackDelayNanos());
        }
    }

    /**
     * A request passed its checks: its timestamp gives the one-way delay and its PSN the newest accepted, which the
     * AETH-EXT reports (the sender's loss detection counts it as arrived). Frames that fail a check do not count, so a
     * forged one cannot claim a PSN arrived nor skew the delay.
     */
    private void accepted(RxPacket p, long now) {
        if (!p.hasTs()) return;
        resp.owd = (int) now - p.tsT1();
        resp.owdPsn = p.psn();
    }

    /** A READ or atomic ahead of the expected PSN names a key that allows it (it runs only when its turn comes). */
    private boolean accessOk(RxPacket p, int o) {
        if (o == Opcode.RDMA_READ_REQUEST) {
            return (qp.accessFlags & AccessFlags.REMOTE_READ) != 0 && keys.remote(p.rethRkey(), qp.pd, qp, p.rethVa(),
                    p.rethLength() & 0xFFFFFFFFL, AccessFlags.REMOTE_READ) != null;
        }
        return (qp.accessFlags & AccessFlags.REMOTE_ATOMIC) != 0
                && keys.remote(p.atomicRkey(), qp.pd, qp, p.atomicVa(), 8, AccessFlags.REMOTE_ATOMIC) != null;
    }

    /** Whether a request PSN is inside the placement window [ePsn, ePsn + size): only those reach the FEC decoder. */
    boolean inWindow(int psn) {
        int d = Psn.diff(psn, resp.ePsn);
        return d >= 0 && d < win.size();
    }

    /**
     * Whether a P-FEC group starts within a window's size of ePsn, behind or ahead: a real one does (its parity
     * follows its data, and even a group received whole moves where the SACK may list gaps); others are forged.
     */
    boolean groupInWindow(int base) {
        return Math.abs(Psn.diff(base, resp.ePsn)) < win.size();
    }

    /** A PSN is missing: a selective peer hears of it in the next SACK; otherwise one NAK per gap (go-back-N). */
    private void gap(long now) {
        if (qp.recovery.selective()) {
            if (qp.recovery.ackDelayNanos() > 0) qp.timers.armSack(now + qp.recovery.ackDelayNanos());
            return;
        }
        if (!resp.nakSent) {
            resp.nakSent = resp.sendAckOrNak(Aeth.SYNDROME_NAK | Aeth.NAK_PSN_SEQUENCE_ERROR, resp.ePsn, now);
            if (resp.nakSent) qp.counters.increment(Counter.OUT_OF_SEQ_REQUEST);
        }
    }

    /**
     * The SACK timer: report what arrived (and what is still missing) at least every T; again while a gap stays, each
     * repeat with nothing placed since waiting twice as long (up to the ACK timeout), and none after
     * {@link #MAX_SACK_REPEATS}: the requester's own timeout covers lost SACKs, as TCP's does, and a gap no one fills
     * (a forged request far ahead) must not keep the link busy.
     */
    @Override
    public void onSackTimer(long now) {
        boolean gapLeft = Psn.before(resp.ePsn, rcvHigh);
        sacks.onTimer(qp.fecRx, now);
        boolean progress = placedCount != placedAtSackTimer || resp.ePsn != ePsnAtSackTimer;
        placedAtSackTimer = placedCount;
        ePsnAtSackTimer = resp.ePsn;
        sackRepeats = progress ? 0 : sackRepeats + 1;
        if (sinceAck > 0 || (gapLeft && sackRepeats <= MAX_SACK_REPEATS)) resp.ackDue(Psn.add(resp.ePsn, -1));
        long delay = qp.recovery.ackDelayNanos();
        if (gapLeft && delay > 0 && sackRepeats < MAX_SACK_REPEATS) qp.timers.armSack(now + sackInterval(delay));
    }

    /** The wait before the next repeated SACK: the ACK delay doubled per repeat, at most the ACK timeout (or 1 s). */
    private long sackInterval(long delay) {
        long cap = Math.max(delay, Math.min(qp.ackTimeoutNanos, MAX_SACK_INTERVAL_NANOS));
        return Math.min(cap, delay << Math.min(sackRepeats, 30));
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
            RegisteredMemory mr = keys.remote(p.rethRkey(), qp.pd, qp, va, len, AccessFlags.REMOTE_WRITE);
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
            if (k != 0 || (!recv.held && !recv.take())) return notPlaced(psn, d, now);
            st = Dma.scatter(keys, qp.pd, recv.addr, recv.len, recv.lkey, 0, recv.numSge, va, p.payloads(), p.payload(),
                    p.payloadOffset(), len);
        }
        if (st != Dma.OK) {
            if (d != 0) { // the receive is failed when the expected PSN fails it, not on a frame ahead anyone could forge
                qp.drop(Counter.DROP_AHEAD_ACCESS, psn, now);
                return false;
            }
            if (k == 0) completeHead(st == Dma.LENGTH ? WcStatus.LOC_LEN_ERR : WcStatus.LOC_PROT_ERR, WcOpcode.RECV, 0, 0, 0, 0, false);
            resp.classC(st == Dma.LENGTH ? Aeth.NAK_INVALID_REQUEST : Aeth.NAK_REMOTE_OPERATIONAL_ERROR, psn, null, now);
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
        resp.classC(nakCode, psn, recvStatus, now);
    }

    /** A SEND whose receive is not posted: RNR NAK when it is the next message in order, else left for a SACK. */
    private boolean notPlaced(int psn, int d, long now) {
        if (d == 0) {
            resp.sendRnrNak(psn, now);
        } else {
            qp.drop(Counter.DROP_NOT_PLACEABLE, psn, now);
        }
        return false;
    }

    /** Moves ePsn over the PSNs present, completing each message whose last PSN it passes (so in order, and only whole). */
    private void advance(long now) {
        while (win.has(resp.ePsn)) {
            int f = win.flagsOf(resp.ePsn);
            if ((f & PsnWindow.END) != 0 && !completeMessage(resp.ePsn, f, now)) return;
            win.clear(resp.ePsn);
            resp.ePsn = Psn.add(resp.ePsn, 1);
            resp.nakSent = false;
            if (qp.state() == QpState.ERR) return;
        }
    }

    /** Completes the message ending at {@code psn}; false when it waits for a receive (RNR NAK sent). */
    private boolean completeMessage(int psn, int f, long now) {
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
                    resp.classC(Aeth.NAK_INVALID_REQUEST, psn, null, now);
                    return false;
                }
                wcFlags |= WorkCompletion.WITH_INV;
            }
            completeHead(WcStatus.SUCCESS, WcOpcode.RECV, len, (f & PsnWindow.IMM) != 0 ? aux : 0, inv, wcFlags, se);
            qp.counters.increment(Counter.RDMA_RECVS);
        } else if ((f & PsnWindow.IMM) != 0) {
            if (qp.srq == null ? recvQ.peek() < 0 : !recv.held && !recv.take()) {
                resp.sendRnrNak(psn, now);
                return false;
            }
            completeHead(WcStatus.SUCCESS, WcOpcode.RECV_RDMA_WITH_IMM, len, aux, 0, WorkCompletion.WITH_IMM, se);
        }
        resp.msn++;
        return true;
    }

    /** Completes the oldest receive (a QP's own receives stay queued until their message completes). */
    private void completeHead(WcStatus st, WcOpcode op, int len, int imm, int inv, int flags, boolean solicited) {
        headSsn++;
        if (qp.srq != null) {
            recv.complete(st, op, len, imm, inv, flags, solicited);
            return;
        }
        int slot = recvQ.peek();
        if (slot < 0) return;
        long wrId = recvQ.wrId[slot];
        recvQ.consume();
        qp.recvCq.push(wrId, st, op, len, imm, inv, qp.qpNum(), qp.destQpn, flags, solicited);
    }

    /**
     * The ACK (or NAK) with UETH, TS and AETH-EXT (this ACK's time, the one-way delay of the last timestamped packet and
     * its PSN), and with SACK a SACK-ETH: cumulative PSN ePsn and the ranges still missing up to the highest PSN placed.
     */
    @Override
    public boolean sendAck(int syndrome, int psn, long now) {
        int flags = qp.uethFlags;
        boolean sack = (flags & OpcodeTable.UETH_SACK) != 0;
        int ranges = sack && (syndrome & Aeth.SYNDROME_TYPE) == Aeth.SYNDROME_ACK ? sacks.missingRanges(resp.ePsn, rcvHigh, win, qp.fecRx) : 0;
        TxPacket t = qp.claimAck(ranges, now);
        if (t == null) return false;
        t.start(Opcode.RC_ACKNOWLEDGE, qp.destQpn, psn, false, false, flags, ranges).aeth(syndrome, resp.msn & 0xFFFFFF);
        if ((flags & OpcodeTable.UETH_TS) != 0) t.ts((int) now, 0).aethExt((int) now, resp.owd, resp.owdPsn);
        if (sack) {
            t.sack(ranges, resp.ePsn).sackLoss(lossMeter.report());
            for (int i = 0; i < ranges; i++) t.sackRange(i, sacks.rangeStart[i], sacks.rangeLength[i]);
        }
        qp.telemetry.onAckWritten(t);
        qp.commit(t, qp.route, now);
        sinceAck = 0;
        if (ranges > 0) qp.counters.increment(Counter.SACKS_SENT);
        resp.afterAck(syndrome, psn, now);
        return true;
    }

    @Override
    public boolean moreToReport() {
        return sacks.resumesPast(resp.ePsn);
    }
}
