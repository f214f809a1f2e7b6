package org.urdma.transport.engine;

import org.agrona.DeadlineTimerWheel;
import org.urdma.transport.counters.Counter;
import org.urdma.transport.counters.QpCounters;
import org.urdma.transport.journal.EventJournal;
import org.urdma.transport.packet.Route;
import org.urdma.transport.packet.RxPacket;
import org.urdma.transport.packet.TxPacket;
import org.urdma.transport.rate.CongestionSignal;
import org.urdma.transport.rate.RateControl;
import org.urdma.transport.recovery.LossRecovery;
import org.urdma.transport.wire.Opcode;
import org.urdma.transport.wire.OpcodeTable;
import org.urdma.verbs.AsyncEventType;
import org.urdma.verbs.ProtectionDomain;
import org.urdma.verbs.QpAttrMask;
import org.urdma.verbs.QpAttributes;
import org.urdma.verbs.QpInitAttributes;
import org.urdma.verbs.QpState;
import org.urdma.verbs.QpTransitions;
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
    /** This QP's engine counters (one source for every number the getters below report) and the device's journal. */
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
    private volatile QpState state = QpState.RESET;
    final QpAttributes attrs = new QpAttributes();
    // connection parameters (engine copy of attrs)
    int mtu = 1024;
    int destQpn;
    int qkey;
    int accessFlags;
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
    /** Answers CE-marked requests with CNPs. */
    final CnpSender cnp;
    /** Requester side: CNPs handed to the rate control, and those PAXI's CNP merge dropped. */
    long cnpsHandled;
    long cnpsMerged;

    private boolean drainedRaised;
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
    long retryTimerId = DeadlineTimerWheel.NULL_DEADLINE;
    long retryDeadline = Long.MAX_VALUE;
    long rnrTimerId = DeadlineTimerWheel.NULL_DEADLINE;
    long rnrDeadline = Long.MAX_VALUE;
    /** WAN mode: the responder's SACK timer (an ACK with SACK-ETH at least every T µs while packets arrive). */
    long sackTimerId = DeadlineTimerWheel.NULL_DEADLINE;
    long sackDeadline = Long.MAX_VALUE;

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
            applyModify(copy, mask);
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

    /** The UETH flags this QP's packets carry (0: DC mode). */
    public int uethFlags() {
        return uethFlags;
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

    /** Names of this QP's loss recovery (with its P-FEC overlay when agreed) and rate control. */
    public String policyNames() {
        String fec = (uethFlags & OpcodeTable.UETH_FEC) == 0 ? ""
                : fecData == 0 ? "+fec auto" : "+fec " + fecData + "/" + fecParity;
        return recovery.name() + fec + ", " + rate.name();
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
        if (wr.numSge() > maxSendSge) {
            throw new IllegalArgumentException("num_sge: " + wr.numSge() + " exceeds cap.max_send_sge=" + maxSendSge);
        }
        long total = wr.totalLength();
        if (total > Integer.MAX_VALUE) throw new IllegalArgumentException("sg_list: total length must be < 2 GiB");
        WrOpcode op = wr.opcode();
        if ((wr.flags() & SendFlags.INLINE) != 0) {
            if (op.writesLocalMemory()) throw new IllegalArgumentException("send_flags: INLINE is not allowed for " + op);
            if (total > maxInline) {
                throw new IllegalArgumentException("send_flags: INLINE payload " + total + " exceeds cap.max_inline_data=" + maxInline);
            }
        }
        if (op.isAtomic() && op.supportedOn(type) && (wr.numSge() != 1 || total != 8)) {
            throw new IllegalArgumentException("sg_list: an atomic needs exactly one 8-byte SGE, had " + wr.numSge() + " SGEs, " + total + " bytes");
        }
        if (type == QpType.UD && op.supportedOn(type)) {
            if (!(wr.ah() instanceof SoftAh ah) || ah.pd() != pd) {
                throw new IllegalArgumentException("wr.ud.ah: must be an address handle of the QP's protection domain");
            }
            if ((wr.remoteQpn() & ~0xFFFFFF) != 0) throw new IllegalArgumentException("wr.ud.remote_qpn: must fit 24 bits");
        }
        sq.put(wr, (int) total);
        device.onPosted(this);
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
    public void close() {
        device.destroyQp(this);
    }

    // ---------------------------------------------------------------- control (engine thread)

    private void applyModify(QpAttributes a, int mask) {
        QpState cur = state;
        QpState next = QpTransitions.validate(type, cur, a, mask);
        if ((mask & QpAttrMask.PATH_MTU) != 0 && a.pathMtu().bytes() > device.link().maxPayload()) {
            throw new IllegalArgumentException("path_mtu: " + a.pathMtu().bytes() + " exceeds the link's " + device.link().maxPayload());
        }
        if ((mask & QpAttrMask.MAX_QP_RD_ATOMIC) != 0 && a.maxRdAtomic() > device.config().maxRdAtomic()) {
            throw new IllegalArgumentException("max_rd_atomic: " + a.maxRdAtomic() + " exceeds device max_qp_init_rd_atom " + device.config().maxRdAtomic());
        }
        if ((mask & QpAttrMask.MAX_DEST_RD_ATOMIC) != 0 && a.maxDestRdAtomic() > device.config().maxRdAtomic()) {
            throw new IllegalArgumentException("max_dest_rd_atomic: " + a.maxDestRdAtomic() + " exceeds device max_qp_rd_atom " + device.config().maxRdAtomic());
        }
        if (next == QpState.RTR && cur == QpState.INIT && recovery.selective() && uethFlags == 0 && type == QpType.RC) {
            // a SACK sender needs a receiver that places out of order and reports gaps: WAN mode on both sides
            throw new IllegalStateException("reliability: " + recovery.name() + " needs WAN mode (per-packet RETH and SACK agreed with the peer); QP " + qpn + " is in DC mode");
        }
        attrs.apply(a, mask);
        mtu = type == QpType.UD ? Math.min(4096, device.link().maxPayload()) : attrs.pathMtu().bytes() - fecHeadroom();
        destQpn = attrs.destQpn();
        qkey = attrs.qkey();
        accessFlags = attrs.accessFlags();
        ackTimeoutNanos = Timing.ackTimeoutNanos(attrs.timeout());
        retryCnt = attrs.retryCnt();
        rnrRetry = attrs.rnrRetry();
        minRnrTimer = attrs.minRnrTimer();
        maxRdAtomic = Math.max(1, attrs.maxRdAtomic());
        maxDestRdAtomic = Math.max(1, attrs.maxDestRdAtomic());
        if ((mask & QpAttrMask.AV) != 0) {
            route.set(attrs.av().dmac(), attrs.av().dgid() != null ? attrs.av().dgid().toBytes() : new byte[16])
                    .trafficClass(attrs.av().trafficClass());
        }
        if (next == cur && (mask & QpAttrMask.STATE) == 0) return;
        switch (next) {
            case RESET -> reset();
            case RTR -> {
                if (cur == QpState.INIT) {
                    recovery.window(window());
                    responder.start(attrs.rqPsn());
                    startFec(attrs.rqPsn());
                }
            }
            case RTS -> {
                if (cur == QpState.RTR) {
                    recovery.start(attrs.sqPsn());
                    requester.start(attrs.sqPsn());
                }
            }
            case ERR -> {
                moveToError(false);
                return;
            }
            case SQD -> drainedRaised = false;
            default -> { }
        }
        if (next != cur) journal.qpState(now(), qpn, cur, next);
        state = next;
        device.activate(this);
    }

    private long now() {
        return device.now();
    }

    /**
     * P-FEC protects whole transport sections (headers too), so a parity payload is up to 64 bytes longer than a data
     * payload: with FEC agreed both sides segment at path MTU - 64, and parity frames stay within the data frames' size.
     */
    static final int FEC_HEADROOM = 64;

    private int fecHeadroom() {
        return (uethFlags & OpcodeTable.UETH_FEC) != 0 ? FEC_HEADROOM : 0;
    }

    /** Longest transport section P-FEC protects: BTH, every URDMA and extended header a request carries, payload, pad. */
    private int fecSection() {
        return mtu + FEC_HEADROOM;
    }

    private void startFec(int rqPsn) {
        if ((uethFlags & OpcodeTable.UETH_FEC) == 0) {
            fecTx = null;
            fecRx = null;
            return;
        }
        int m = FecSender.initialM(fecData);
        int r = FecSender.initialR(fecData, fecParity);
        fecRx = new FecReceiver(fecSection(), rqPsn, m, r);
        fecTx = new FecSender(this, fecSection(), fecData, fecParity);
    }

    private void reset() {
        cancelTimers();
        // discard every queued request without completions, as a RESET does
        sq.retired.set(sq.producer.get());
        if (rq != null) rq.consumer.set(rq.producer.get());
        requester.reset();
        responder.start(0);
        fecTx = null;
        fecRx = null;
        state = QpState.RESET;
    }

    // ---------------------------------------------------------------- engine

    /** Moves to ERR: the failing request already completed with its status; everything else flushes. */
    void enterError(long now) {
        moveToError(true);
    }

    /** {@code fatal}: the engine found the error (raises QP_FATAL); a modify to ERR does not. */
    private void moveToError(boolean fatal) {
        if (state == QpState.ERR) return;
        journal.qpState(now(), qpn, state, QpState.ERR);
        state = QpState.ERR;
        cancelTimers();
        if (fatal) device.raise(AsyncEventType.QP_FATAL, this);
        flush();
        device.activate(this); // what is posted later is flushed when it comes
    }

    /** Completes every outstanding send and receive WQE with WR_FLUSH_ERR (ERR state). */
    private int flush() {
        int n = 0;
        long p = sq.producer.get();
        for (long i = sq.retired.get(); i < p; i++) {
            int s = sq.slot(i);
            long id = sq.wrId[s];
            WcOpcode op = WrOpcode.of(sq.opcode[s]).completion();
            sq.retired.lazySet(i + 1);
            sendCq.push(id, WcStatus.WR_FLUSH_ERR, op, 0, 0, 0, qpn, 0, 0, false);
            n++;
        }
        requester.afterFlush();
        responder.flushTaken();
        if (rq != null) {
            long rp = rq.producer.get();
            for (long i = rq.consumer.get(); i < rp; i++) {
                long id = rq.wrId[(int) (i & rq.mask)];
                rq.consumer.lazySet(i + 1);
                recvCq.push(id, WcStatus.WR_FLUSH_ERR, WcOpcode.RECV, 0, 0, 0, qpn, 0, 0, false);
                n++;
            }
        }
        return n;
    }

    int progress(long now) {
        QpState s = state;
        if (s == QpState.ERR) return flush();
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

    void onPacket(RxPacket p, long now) {
        QpState s = state;
        if (s == QpState.RESET || s == QpState.INIT || s == QpState.ERR) {
            drop(Counter.DROP_WRONG_STATE, p.psn(), now);
            return;
        }
        if (type != QpType.UD && !p.sourceIs(route)) { // rxe check_addr: RC/UC take packets from their peer only
            drop(Counter.DROP_FOREIGN_SOURCE, p.psn(), now);
            return;
        }
        if (((p.opcode() & 0xE0) == Opcode.TRANSPORT_RC && OpcodeTable.has(p.opcode(), OpcodeTable.ACK))) {
            if (type == QpType.RC && s != QpState.RTR) {
                received(p);
                completer.onResponse(p, now);
            } else {
                drop(Counter.DROP_BAD_OPCODE, p.psn(), now);
            }
        } else if (p.opcode() == Opcode.URDMA_FEC_PARITY) {
            if (fecRx == null) {
                drop(Counter.DROP_BAD_OPCODE, 0, now);
                return;
            }
            if (!responder.groupInWindow(p.fecBasePsn())) { // checked first: a forged base far ahead costs nothing
                drop(Counter.DROP_FEC_OUT_OF_WINDOW, p.fecBasePsn(), now);
                return;
            }
            received(p);
            counters.increment(Counter.FEC_PARITY_RCVD);
            RxPacket rebuilt = fecRx.onParity(p);
            if (rebuilt != null) repaired(rebuilt, p.fecBasePsn(), now);
        } else {
            received(p);
            if (p.ecn() == ECN_CE) cnp.onCe(p, now);
            // the decoder reads the packet before the responder acts on it; a packet it lets us rebuild goes after
            // only inside the placement window: the responder drops the rest, and the decoder must not open groups for them
            RxPacket rebuilt = fecRx != null && type == QpType.RC && responder.inWindow(p.psn()) ? fecRx.onData(p) : null;
            responder.onRequest(p, now);
            if (rebuilt != null && state != QpState.ERR) repaired(rebuilt, p.psn(), now);
        }
    }

    /** A lost request rebuilt from P-FEC parity: counted, journalled and placed as if it had arrived. */
    private void repaired(RxPacket rebuilt, int byPsn, long now) {
        counters.increment(Counter.FEC_REPAIRED);
        journal.fecRepaired(now, qpn, rebuilt.psn(), byPsn);
        responder.onRequest(rebuilt, now);
    }

    /** A CNP for this QP (past the device's CNP merge): its rate control hears it. */
    void onCnp(long now) {
        QpState s = state;
        if (s == QpState.RESET || s == QpState.INIT || s == QpState.ERR) {
            drop(Counter.DROP_WRONG_STATE, 0, now);
            return;
        }
        cnpsHandled++;
        counters.increment(Counter.CNP_HANDLED);
        journal.cnpReceived(now, qpn, 0);
        rate.onCongestion(CongestionSignal.CNP, now);
    }

    private void received(RxPacket p) {
        counters.increment(Counter.RCVD_PKTS);
        counters.add(Counter.RCVD_BYTES, TxPacket.sectionLength(p.opcode(), p.payloadLength()));
    }

    /** A packet for this QP is dropped: counted under its reason and journalled. */
    void drop(Counter reason, int psn, long now) {
        counters.increment(reason);
        journal.drop(now, qpn, reason, psn);
    }

    /** A frame slot from the device's link, or null on back-pressure (try again on a later pass). */
    TxPacket claim(int opcode, int payloadLength, Route to, long now) {
        TxPacket t = device.claim(opcode, payloadLength + TxPacket.wanExtra(opcode, uethFlags, 0), to, now);
        if (t == null) {
            counters.increment(Counter.TX_BLOCKED);
            rate.onLinkHeld(now);
        }
        return t;
    }

    /** As {@link #claim(int, int, Route, long)} for an ACK whose SACK-ETH carries {@code sackRanges} ranges. */
    TxPacket claimAck(int sackRanges, long now) {
        TxPacket t = device.claim(Opcode.RC_ACKNOWLEDGE, TxPacket.wanExtra(Opcode.RC_ACKNOWLEDGE, uethFlags, sackRanges), route, now);
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

    /** The earliest timer (ACK timeout, RNR wait) of this QP; the wheel fires it on the tick after. */
    long nextDeadline() {
        return Math.min(Math.min(retryDeadline, rnrDeadline), sackDeadline);
    }

    void armSackTimer(long deadline) {
        if (sackTimerId != DeadlineTimerWheel.NULL_DEADLINE) return;
        sackDeadline = deadline;
        sackTimerId = device.scheduleTimer(this, deadline);
    }

    void cancelSackTimer() {
        device.cancelTimer(sackTimerId);
        sackTimerId = DeadlineTimerWheel.NULL_DEADLINE;
        sackDeadline = Long.MAX_VALUE;
    }

    /** When the rate control lets this QP send what it has waiting, or Long.MAX_VALUE when it is not held back. */
    long pacingDeadline() {
        return pacedUntil != Long.MIN_VALUE && requester.hasPendingWork() ? pacedUntil : Long.MAX_VALUE;
    }

    void armRetryTimer(long deadline) {
        if (ackTimeoutNanos == Long.MAX_VALUE) return;
        if (retryTimerId != DeadlineTimerWheel.NULL_DEADLINE) return; // lazily re-checked at expiry
        retryDeadline = deadline;
        retryTimerId = device.scheduleTimer(this, deadline);
    }

    void cancelRetryTimer() {
        device.cancelTimer(retryTimerId);
        retryTimerId = DeadlineTimerWheel.NULL_DEADLINE;
        retryDeadline = Long.MAX_VALUE;
    }

    void armRnrTimer(long deadline) {
        device.cancelTimer(rnrTimerId);
        rnrDeadline = deadline;
        rnrTimerId = device.scheduleTimer(this, deadline);
    }

    void cancelTimers() {
        cancelRetryTimer();
        device.cancelTimer(rnrTimerId);
        rnrTimerId = DeadlineTimerWheel.NULL_DEADLINE;
        rnrDeadline = Long.MAX_VALUE;
        cancelSackTimer();
    }

    void onTimer(long timerId, long now) {
        if (timerId == retryTimerId) {
            retryTimerId = DeadlineTimerWheel.NULL_DEADLINE;
            retryDeadline = Long.MAX_VALUE;
            if (state == QpState.RTS || state == QpState.SQD || state == QpState.SQE) completer.onRetryTimer(now);
        } else if (timerId == rnrTimerId) {
            rnrTimerId = DeadlineTimerWheel.NULL_DEADLINE;
            rnrDeadline = Long.MAX_VALUE;
            requester.onRnrTimer(now);
        } else if (timerId == sackTimerId) {
            sackTimerId = DeadlineTimerWheel.NULL_DEADLINE;
            sackDeadline = Long.MAX_VALUE;
            if (state != QpState.ERR && state != QpState.RESET) responder.onSackTimer(now);
        }
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

    /** This QP's engine counters (live in the device's counters file when it has one). */
    public QpCounters counters() {
        return counters;
    }

    /** Packets this QP sent again (go-back retransmissions). */
    public long retransmittedPackets() {
        return counters.get(Counter.RETRANSMITTED_PKTS);
    }

    /** Packets this QP sent: requests, retransmissions, and its responder's ACKs, NAKs and READ responses (rxe's sent_pkts). */
    public long packetsSent() {
        return counters.get(Counter.SENT_PKTS);
    }

    /** Retransmission rounds started (NAK, implicit NAK or timeout) and ACK timeouts among them. */
    public long retries() {
        return counters.get(Counter.COMPLETER_RETRY_ERR);
    }

    public long timeouts() {
        return counters.get(Counter.ACK_TIMEOUTS);
    }

    /** Responder side: ACKs and NAKs sent, duplicate requests and sequence gaps (out-of-sequence requests) received. */
    public String responderStats() {
        return "acks " + responder.acksSent + ", naks " + counters.get(Counter.NAKS_SENT) + ", duplicates "
                + counters.get(Counter.DUPLICATE_REQUEST) + ", out of sequence " + counters.get(Counter.OUT_OF_SEQ_REQUEST);
    }

    /** RNR NAKs this QP's responder sent (a SEND found no receive posted). */
    public long rnrNaksSent() {
        return counters.get(Counter.RNR_NAKS_SENT);
    }

    /** RC/UC packets dropped because their source is not this QP's destination (rxe check_addr). */
    public long foreignSourceDrops() {
        return counters.get(Counter.DROP_FOREIGN_SOURCE);
    }

    /** The responder's expected PSN (the next request in order), for oracles that judge a request by where it fell. */
    public int expectedPsn() {
        return responder.ePsn;
    }

    /** ACKs, NAKs and responses the completer ignored as older than the oldest unacknowledged PSN. */
    public long staleResponses() {
        return completer.stale;
    }

    /** RNR NAKs this QP's requester received (each one waits the NAK's timer, then resends). */
    public long rnrNaksReceived() {
        return counters.get(Counter.RCVD_RNR_ERR);
    }

    /** Requests that arrived CE-marked (ECN 0b11). */
    public long ceReceived() {
        return cnp.ceReceived;
    }

    /** CNPs this QP sent in answer to CE-marked requests. */
    public long cnpsSent() {
        return cnp.cnpsSent;
    }

    /** CNPs this QP's rate control heard. */
    public long cnpsHandled() {
        return cnpsHandled;
    }

    /** CNPs for this QP that PAXI's CNP merge dropped (another came within TIMER_THR). */
    public long cnpsMerged() {
        return cnpsMerged;
    }

    @Override
    public String toString() {
        return type + " qp " + qpn + " (" + state + ")";
    }
}
