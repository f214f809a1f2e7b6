package org.urdma.transport.engine;

import org.urdma.transport.counters.Counter;
import org.urdma.transport.counters.QpCounters;
import org.urdma.transport.counters.QpStats;
import org.urdma.transport.journal.EventJournal;
import org.urdma.transport.memory.SoftMw;
import org.urdma.transport.packet.Route;
import org.urdma.transport.packet.TxPacket;
import org.urdma.transport.rate.RateControl;
import org.urdma.transport.recovery.LossRecovery;
import org.urdma.transport.wire.Opcode;
import org.urdma.transport.wire.OpcodeTable;
import org.urdma.verbs.AsyncEventType;
import org.urdma.verbs.Gid;
import org.urdma.verbs.MemoryWindow;
import org.urdma.verbs.MwBind;
import org.urdma.verbs.MwType;
import org.urdma.verbs.ProtectionDomain;
import org.urdma.verbs.QpAttributes;
import org.urdma.verbs.QpInitAttributes;
import org.urdma.verbs.QpState;
import org.urdma.verbs.QpType;
import org.urdma.verbs.QueuePair;
import org.urdma.verbs.ReceiveWorkRequest;
import org.urdma.verbs.SendFlags;
import org.urdma.verbs.SendWorkRequest;
import org.urdma.verbs.WcOpcode;
import org.urdma.verbs.WcStatus;
import org.urdma.verbs.WrOpcode;

/**
 * A queue pair: the verbs face (post, modify) on the application side and the protocol state — requester,
 * completer, responder — on the engine side. State changes other than posting run on the engine thread.
 */
public final class SoftQp implements QueuePair {
    /** ECN Congestion Experienced. */
    static final int ECN_CE = 0b11;
    final SoftDevice device;
    /** This QP's engine counters (one source for every number {@link #stats} reports) and the device's journal. */
    final QpCounters counters;
    final EventJournal journal;
    final SoftPd pd;
    final QpType type;
    private final int qpn;
    final SoftCq sendCq;
    final SoftCq recvCq;
    final SoftSrq srq;
    final SendQueue sq;
    final RecvQueue rq;
    final boolean sqSigAll;
    final int maxSendSge;
    final int maxInline;
    /** Per-QP policies, made when the QP is created; a connection may choose others while the QP is in RESET or INIT. */
    LossRecovery recovery;
    RateControl rate;
    /**
     * WAN mode (URDMA, WIRE.md §10): the UETH flags every packet of this QP carries, 0 in DC mode; agreed at connection
     * setup ({@link #wan}). FEC group shape as negotiated (0,0 = adaptive) for the FEC overlay to read.
     */
    int uethFlags;
    int fecData, fecParity;
    /** P-FEC (UETH FEC agreed): parity out of the requester, repairs into the responder; made at RTR, else null. */
    FecSender fecTx;
    FecReceiver fecRx;
    /** The rate control holds the requester back until this time (Long.MIN_VALUE: not paced). */
    long pacedUntil = Long.MIN_VALUE;
    volatile QpState state = QpState.RESET;
    final QpAttributes attrs = new QpAttributes();
    // connection parameters (engine copy of attrs)
    int mtu = 1024;
    int destQpn;
    int qkey;
    int accessFlags;
    /** The request {@link #bindMw} posts (posting is one thread at a time, so one is reused). */
    private SendWorkRequest bindWr;
    long ackTimeoutNanos = Long.MAX_VALUE;
    int retryCnt;
    int rnrRetry;
    int minRnrTimer;
    int maxRdAtomic;
    int maxDestRdAtomic;
    /** Where this QP's packets go (RC/UC: the connected peer; set with the address vector). */
    final Route route = new Route();

    final Requester requester;
    final Completer completer;
    final Responder responder;
    /** Arrivals for this QP, checked and handed on. */
    final QpReceive rx = new QpReceive(this);
    /** Modify, reset, error and flush, on the engine thread. */
    private final QpControl control;
    /** Answers CE-marked requests with CNPs. */
    final CnpSender cnp;
    /** INT stacks out with requests, back in ACKs, on to the rate control (HPCC). */
    final IntFeedback telemetry = new IntFeedback(this);

    boolean drainedRaised;
    // scheduling (SoftDevice): in the ready queue; position in each QpSet; closed
    boolean ready;
    final int[] setIndex = {-1, -1};
    boolean destroyed;
    /** 1 while this QP waits in the device's queue of posted QPs: set by posters, cleared by the engine. */
    @SuppressWarnings("unused")
    private volatile int postSignal;
    private static final java.lang.invoke.VarHandle POST_SIGNAL;

    static {
        try {
            POST_SIGNAL = java.lang.invoke.MethodHandles.lookup().findVarHandle(SoftQp.class, "postSignal", int.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }
    /** The ACK-timeout, RNR and SACK timers. */
    final QpTimers timers = new QpTimers(this);
    private final QpStats stats = new SoftQpStats(this);

    SoftQp(SoftDevice device, SoftPd pd, QpInitAttributes init, int qpn, QpCounters counters) {
        this.device = device;
        this.counters = counters;
        this.journal = device.journal();
        this.pd = pd;
        this.type = init.type();
        this.qpn = qpn;
        this.sendCq = (SoftCq) init.sendCq();
        this.recvCq = (SoftCq) init.recvCq();
        this.srq = (SoftSrq) init.srq();
        this.sqSigAll = init.sqSigAll();
        this.maxSendSge = init.maxSendSge();
        this.maxInline = init.maxInlineData();
        this.sq = new SendQueue(init.maxSendWr(), init.maxSendSge(), init.maxInlineData());
        this.rq = srq == null ? new RecvQueue(init.maxRecvWr(), init.maxRecvSge()) : null;
        this.recovery = device.config().lossRecovery().create();
        this.rate = device.config().rateControl().create();
        this.requester = new Requester(this);
        this.completer = new Completer(this);
        this.responder = new Responder(this);
        this.cnp = new CnpSender(this);
        this.control = new QpControl(this);
    }

    // ---------------------------------------------------------------- verbs (application side)

    @Override
    public int qpNum() {
        return qpn;
    }

    @Override
    public QpType type() {
        return type;
    }

    @Override
    public QpState state() {
        return state;
    }

    @Override
    public ProtectionDomain pd() {
        return pd;
    }

    @Override
    public void modify(QpAttributes a, int mask) {
        if (a == null) throw new IllegalArgumentException("attr: must not be null");
        QpAttributes copy = a.copy();
        device.control(() -> {
            control.applyModify(copy, mask);
            return null;
        });
    }

    /**
     * Chooses this QP's loss recovery and rate control (urdma's connection setup negotiates them by name); only
     * before the QP reaches RTR, as a NIC takes its congestion-control profile at connection time.
     */
    public void policies(LossRecovery.Factory lossRecovery, RateControl.Factory rateControl) {
        if (lossRecovery == null || rateControl == null) throw new IllegalArgumentException("policies: must not be null");
        device.control(() -> {
            if (state != QpState.RESET && state != QpState.INIT) {
                throw new IllegalStateException("qp_state: policies are chosen in RESET or INIT; QP " + qpn + " is " + state);
            }
            recovery = lossRecovery.create();
            rate = rateControl.create();
            return null;
        });
    }

    /**
     * Puts an RC QP in WAN mode with the agreed UETH flags (timestamps, per-packet RETH, SACK, FEC) and FEC group
     * ({@code fecData}, {@code fecParity}; 0,0 = adaptive); SACK also selects the {@code sack} loss recovery. Only before
     * RTR, like {@link #policies}. Flags 0 return the QP to DC mode.
     */
    public void wan(int uethFlags, int fecData, int fecParity) {
        if ((uethFlags & ~0xF0) != 0) throw new IllegalArgumentException("uethFlags: only 0x80|0x40|0x20|0x10, was 0x" + Integer.toHexString(uethFlags));
        if (uethFlags != 0 && type != QpType.RC) throw new IllegalArgumentException("wan: RC only, this QP is " + type);
        if ((uethFlags & OpcodeTable.UETH_SACK) != 0 && (uethFlags & OpcodeTable.UETH_PER_PACKET_RETH) == 0) {
            throw new IllegalArgumentException("uethFlags: SACK needs per-packet RETH (out-of-order placement)");
        }
        device.control(() -> {
            if (state != QpState.RESET && state != QpState.INIT) {
                throw new IllegalStateException("qp_state: WAN mode is chosen in RESET or INIT; QP " + qpn + " is " + state);
            }
            this.uethFlags = uethFlags;
            this.fecData = fecData;
            this.fecParity = fecParity;
            if ((uethFlags & OpcodeTable.UETH_SACK) != 0) recovery = LossRecovery.sack().create();
            return null;
        });
    }

    boolean wan() {
        return uethFlags != 0;
    }

    /** Packets a WAN QP may have unacknowledged at least: half the receiver's PSN window (it places any of them). */
    static final int WAN_WINDOW = PsnWindow.SIZE / 2;

    /**
     * Packets this QP may have unacknowledged: the device's window, or in WAN mode at least {@link #WAN_WINDOW}. The
     * DC window (512) bounds what go-back-N resends; a WAN path's bandwidth-delay product is larger (1 Gbit/s x 80 ms:
     * 2442 packets of 4 KiB), and a loss holds the cumulative ACK back one more round trip.
     */
    int window() {
        int w = device.config().window();
        return wan() ? Math.max(w, WAN_WINDOW) : w;
    }

    boolean perPacketReth() {
        return (uethFlags & OpcodeTable.UETH_PER_PACKET_RETH) != 0;
    }

    @Override
    public QpAttributes query() {
        return device.control(() -> attrs.copy().state(state).curState(state));
    }

    @Override
    public void postSend(SendWorkRequest wr) {
        if (wr == null) throw new IllegalArgumentException("wr: must not be null");
        QpState s = state;
        if (s == QpState.RESET || s == QpState.INIT || s == QpState.RTR) {
            throw new IllegalStateException("qp_state: postSend needs RTS, SQD, SQE or ERR; QP " + qpn + " is " + s);
        }
        long total = SendChecks.check(this, wr);
        sq.put(wr, (int) total);
        if (wr.opcode() == WrOpcode.BIND_MW) ((SoftMw) wr.bindMwWindow()).posted(wr.bindRkey());
        device.onPosted(this);
    }

    @Override
    public int bindMw(MemoryWindow mw, MwBind bind) {
        if (bind == null) throw new IllegalArgumentException("bindMw: bind must not be null");
        if (mw != null && mw.type() != MwType.TYPE_1) {
            throw new IllegalArgumentException("bindMw: mw is " + mw.type() + "; type 2 windows are bound by a BIND_MW work request");
        }
        if (mw == null) throw new IllegalArgumentException("bindMw: mw must not be null");
        int next = MemoryWindow.incRkey(mw.rkey());
        if (bindWr == null) bindWr = new SendWorkRequest();
        bindWr.reset().wrId(bind.wrId()).flags(bind.flags()).opcode(WrOpcode.BIND_MW).bindMw(mw, next, bind);
        BindChecks.check(this, bindWr, "bindMw");
        postSend(bindWr);
        return next;
    }

    /**
     * True when this post must queue the QP. A full-fence swap after the SQ producer moved: either the engine's clear
     * (also a swap) comes later and its pass sees the new producer, or this post sees the clear and queues again.
     */
    boolean raisePostSignal() {
        return (int) POST_SIGNAL.getAndSet(this, 1) == 0;
    }

    void clearPostSignal() {
        POST_SIGNAL.getAndSet(this, 0);
    }

    @Override
    public void postRecv(ReceiveWorkRequest wr) {
        if (wr == null) throw new IllegalArgumentException("wr: must not be null");
        if (srq != null) throw new IllegalArgumentException("qp: uses an SRQ; post receives to the SRQ");
        if (state == QpState.RESET) throw new IllegalStateException("qp_state: postRecv needs INIT or later; QP " + qpn + " is RESET");
        rq.put(wr, qpn);
        // in ERR a receive completes flushed, as on rxe: wake the engine, which flushes it (else it would wait forever)
        if (state == QpState.ERR) device.onPosted(this);
    }

    @Override
    public void attachMcast(Gid mgid, int lid) {
        device.control(() -> {
            device.mcast().attach(this, mgid);
            return null;
        });
    }

    @Override
    public void detachMcast(Gid mgid, int lid) {
        device.control(() -> {
            device.mcast().detach(this, mgid);
            return null;
        });
    }

    @Override
    public void close() {
        device.destroyQp(this);
    }

    // ---------------------------------------------------------------- engine

    /** Moves to ERR: the failing request already completed with its status; everything else flushes. */
    void enterError(long now) {
        control.moveToError(true);
    }

    int progress(long now) {
        QpState s = state;
        if (s == QpState.ERR) return control.flush();
        if (s == QpState.RESET || s == QpState.INIT) return 0;
        // this QP's responses (the coalesced ACK) before its new requests: a peer in a ping-pong waits for the ACK of
        // its own message before it takes our reply (perftest's latency loops poll the send CQ first), so with the
        // ACK first it completes that while the kernel still delivers the reply behind it, and answers both at once
        int work = cnp.progress(now);
        work += responder.progress(now);
        if (s == QpState.RTS || s == QpState.SQD) work += requester.progress(now, s == QpState.SQD);
        if (s == QpState.SQD && !drainedRaised && sq.retired.get() == requester.startedIndex) {
            drainedRaised = true; // everything started before SQD has completed
            device.raise(AsyncEventType.SQ_DRAINED, this);
        }
        return work;
    }

    boolean hasPendingWork() {
        QpState s = state;
        if (s == QpState.ERR) return sq.producer.get() != sq.retired.get() || (rq != null && rq.posted() > 0);
        return responder.hasPendingWork() || cnp.hasPendingWork()
                || ((s == QpState.RTS || s == QpState.SQD) && requester.hasPendingWork() && pacedUntil == Long.MIN_VALUE);
    }

    /** A packet for this QP is dropped: counted under its reason and journalled. */
    void drop(Counter reason, int psn, long now) {
        counters.increment(reason);
        journal.drop(now, qpn, reason, psn);
    }

    /** A frame slot from the device's link, or null on back-pressure (try again on a later pass). */
    TxPacket claim(int opcode, int payloadLength, Route to, long now) {
        TxPacket t = device.claim(opcode, payloadLength + TxPacket.wanExtra(opcode, uethFlags, 0) + telemetry.claimExtra(), to, now);
        if (t == null) {
            counters.increment(Counter.TX_BLOCKED);
            rate.onLinkHeld(now);
        }
        return t;
    }

    /** As {@link #claim(int, int, Route, long)} for an ACK whose SACK-ETH carries {@code sackRanges} ranges. */
    TxPacket claimAck(int sackRanges, long now) {
        TxPacket t = device.claim(Opcode.RC_ACKNOWLEDGE, TxPacket.wanExtra(Opcode.RC_ACKNOWLEDGE, uethFlags, sackRanges)
                + telemetry.claimExtra(), route, now);
        if (t == null) counters.increment(Counter.TX_BLOCKED);
        return t;
    }

    /** Sends the packet written into a claimed slot; one the link cannot carry is counted as a send error. */
    void commit(TxPacket t, Route to, long now) {
        if (t.discarded()) {
            counters.increment(Counter.SEND_ERR);
        } else {
            counters.increment(Counter.SENT_PKTS);
            counters.add(Counter.SENT_BYTES, TxPacket.sectionLength(t.opcode(), t.payloadLength()));
        }
        device.commit(t, to, now);
    }

    /** When the rate control lets this QP send what it has waiting, or Long.MAX_VALUE when it is not held back. */
    long pacingDeadline() {
        return pacedUntil != Long.MIN_VALUE && requester.hasPendingWork() ? pacedUntil : Long.MAX_VALUE;
    }

    /**
     * Retires the send WQE at {@code idx} (the oldest) and reports it; unsignaled successes are silent. The slot is
     * read first and released before the completion is visible, so a poster woken by it always finds room.
     */
    void retireSend(long idx, WcStatus status, int byteLen) {
        int slot = sq.slot(idx);
        boolean signaled = sqSigAll || (sq.flags[slot] & SendFlags.SIGNALED) != 0;
        long id = sq.wrId[slot];
        WcOpcode op = WrOpcode.of(sq.opcode[slot]).completion();
        sq.retired.lazySet(idx + 1);
        if (status == WcStatus.SUCCESS && op == WcOpcode.SEND) counters.increment(Counter.RDMA_SENDS);
        if (status != WcStatus.SUCCESS || signaled) {
            sendCq.push(id, status, op, byteLen, 0, 0, qpn, 0, 0, false);
        }
    }

    /** {@return this QP's counters and retry episode, read-only} */
    public QpStats stats() {
        return stats;
    }

    /** This QP's engine counters (live in the device's counters file when it has one). */
    public QpCounters counters() {
        return counters;
    }

    /** The responder's expected PSN (the next request in order), for oracles that judge a request by where it fell. */
    public int expectedPsn() {
        return responder.ePsn;
    }

    @Override
    public String toString() {
        return type + " qp " + qpn + " (" + state + ")";
    }
}
