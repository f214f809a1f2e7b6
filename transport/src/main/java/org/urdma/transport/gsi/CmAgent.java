package org.urdma.transport.gsi;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.random.RandomGenerator;
import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;
import org.agrona.collections.Int2ObjectHashMap;
import org.agrona.collections.Long2ObjectHashMap;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * The Communication Manager of one port (IBTA chapter 12, as the kernel's cm.c runs it): connections by
 * communication ID, listeners by service ID, transaction IDs, response timeouts and retries, MRA when the application
 * answers a REQ late, a duplicate REQ answered rather than made a second connection, an unknown service ID rejected at
 * once. A listener's REQs wait in its backlog (rdma_listen's) until the application takes them; past the backlog, or
 * when the listener goes, they are refused at once with a reason the active side's CM acts on (never Timeout, which
 * the kernel's CM ignores for a REQ it got no REP for). A state machine: MADs in through {@link #onMad}, time through
 * {@link #poll}, MADs out through its {@link Transport}; it never reads a clock. Not thread-safe: one thread (or a lock)
 * drives it.
 */
public final class CmAgent {
    /** Sends one MAD (256 bytes at {@code offset}) to a peer's GSI; copies it before returning. */
    public interface Transport {
        void send(DirectBuffer mad, int offset, CmPeer to);
    }

    /** A service this port accepts connections for. */
    public interface Listener {
        /** A new REQ: answer later with {@link #accept} or {@link #reject} (late answers are MRAed). */
        void onRequest(CmId id);

        /** The UD QP that answers SIDR requests for this service, or 0 when it takes none. */
        default int sidrQpn() {
            return 0;
        }

        default int sidrQkey() {
            return 0;
        }
    }

    private record RemoteKey(int commId, long caGuid) {
    }

    private final CmConfig config;
    private final Transport transport;
    private final RandomGenerator random;
    private final long caGuid;
    private final byte[] localGid;
    /** The upper half of the transaction IDs this agent starts (the kernel's per-agent hi_tid). */
    private final int tidHigh;
    private final Long2ObjectHashMap<Backlog> listeners = new Long2ObjectHashMap<>();
    private final Int2ObjectHashMap<CmId> byLocalId = new Int2ObjectHashMap<>();
    private final Map<RemoteKey, CmId> byRemote = new HashMap<>();
    private final UnsafeBuffer out = new UnsafeBuffer(new byte[Mad.SIZE]);
    private final CmReq req = new CmReq();
    private final CmRep rep = new CmRep();
    private final CmRtu rtu = new CmRtu();
    private final CmRej rej = new CmRej();
    private final CmMra mra = new CmMra();
    private final CmDreq dreq = new CmDreq();
    private final CmDrep drep = new CmDrep();
    private final SidrReq sidrReq = new SidrReq();
    private final SidrRep sidrRep = new SidrRep();
    private final List<CmId> expired = new ArrayList<>();
    private final CmStats stats = new CmStats();

    public CmAgent(CmConfig config, Transport transport, RandomGenerator random, long caGuid, byte[] localGid) {
        this.config = config;
        this.transport = transport;
        this.random = random;
        this.caGuid = caGuid;
        this.localGid = localGid.clone();
        this.tidHigh = random.nextInt();
    }

    public CmStats stats() {
        return stats;
    }

    public CmConfig config() {
        return config;
    }

    public byte[] localGid() {
        return localGid.clone();
    }

    // ---------------------------------------------------------------- application calls

    /** Listens with rdma_listen's default backlog ({@value Backlog#DEFAULT_CAPACITY} REQs not yet taken). */
    public void listen(long serviceId, Listener l) {
        listen(serviceId, l, 0);
    }

    /**
     * Listens on {@code serviceId}: each REQ goes to {@code l} and waits (MRAed when late) until {@link #take}; a REQ
     * finding {@code backlog} others waiting is rejected at once ({@link CmRej#NO_RESOURCES}).
     *
     * @param backlog how many REQs may wait untaken; 0 or less: {@value Backlog#DEFAULT_CAPACITY}, as rdma_listen's 0
     */
    public void listen(long serviceId, Listener l, int backlog) {
        if (listeners.containsKey(serviceId)) {
            throw new IllegalStateException(String.format("service ID 0x%016x: already listened on", serviceId));
        }
        listeners.put(serviceId, new Backlog(l, backlog));
    }

    /**
     * Stops listening: the REQs still waiting in the backlog are rejected at once ({@link CmRej#CONSUMER_DEFINED}, as
     * the kernel rejects the unanswered IDs of a destroyed listener); later REQs get {@link CmRej#INVALID_SERVICE_ID}.
     */
    public void unlisten(long serviceId, long now) {
        Backlog b = listeners.remove(serviceId);
        if (b == null) return;
        for (CmId id : b.drain()) {
            id.backlog = null;
            reject(id, CmRej.CONSUMER_DEFINED, null, now);
        }
    }

    /**
     * The application takes a REQ from its listener's backlog, to accept or reject it.
     *
     * @return false when the REQ is gone (refused as its listener closed, or its active side stopped asking)
     */
    public boolean take(CmId id) {
        if (id.backlog == null || (id.state != CmState.REQ_RCVD && id.state != CmState.MRA_REQ_SENT)) return false;
        id.backlog.remove(id);
        id.backlog = null;
        return true;
    }

    /** REQs waiting in {@code serviceId}'s backlog, not yet taken (0 when nobody listens). */
    public int waiting(long serviceId) {
        Backlog b = listeners.get(serviceId);
        return b == null ? 0 : b.size();
    }

    /**
     * Active side: sends a REQ for {@code qp} (in INIT) to {@code serviceId} at {@code peer} and retries it until a
     * REP, REJ or the last retry. {@code id} comes from {@link #newId()} with its QP parameters set.
     */
    public CmId connect(CmId id, long serviceId, CmPeer peer, byte[] peerGid, CmId.Qp qp, CmId.Events events,
                        byte[] privateData, long now) {
        if (id.passive || id.state != CmState.IDLE) throw new IllegalStateException("connect: " + id + " is not a new active ID");
        id.serviceId = serviceId;
        id.peer = peer;
        id.qp = qp;
        id.events = events;
        id.remoteGid = peerGid.clone();
        id.localGid = localGid.clone();
        register(id);
        id.tid = ((long) tidHigh << 32) | (id.localCommId & 0xFFFFFFFFL);
        req.wrap(out, 0);
        req.start(id.tid);
        req.localCommId(id.localCommId).serviceId(serviceId).localCaGuid(caGuid).localQpn(qp.qpn())
                .responderResources(id.responderResources).initiatorDepth(id.initiatorDepth)
                .remoteCmResponseTimeout(config.responseTimeout()).transportServiceType(id.transportType)
                .startingPsn(id.localPsn).localCmResponseTimeout(config.responseTimeout()).retryCount(id.retryCount)
                .partitionKey(0xFFFF).pathMtu(id.mtuCode).rnrRetryCount(id.rnrRetryCount).maxCmRetries(config.maxRetries())
                .primaryLocalLid(0xFFFF).primaryRemoteLid(0xFFFF).primaryLocalGid(localGid).primaryRemoteGid(peerGid)
                .primaryHopLimit(64).primaryLocalAckTimeout(id.ackTimeout);
        putPrivateData(req, privateData);
        id.state = CmState.REQ_SENT;
        sendTracked(id, now, config.responseTimeout());
        return id;
    }

    /** A new active ID (its local communication ID drawn now), to set QP parameters on before {@link #connect}. */
    public CmId newId() {
        return new CmId(false);
    }

    /** Passive side: the QP goes to RTR and a REP answers the REQ; RTS follows on the RTU. */
    public void accept(CmId id, CmId.Qp qp, CmId.Events events, byte[] privateData, long now) {
        if (!id.passive || (id.state != CmState.REQ_RCVD && id.state != CmState.MRA_REQ_SENT)) {
            throw new IllegalStateException("accept: " + id + " has no REQ waiting for an answer");
        }
        id.qp = qp;
        id.events = events;
        qp.toRtr(id);
        rep.wrap(out, 0);
        rep.start(id.tid);
        rep.localCommId(id.localCommId).remoteCommId(id.remoteCommId).localQpn(qp.qpn()).startingPsn(id.localPsn)
                .responderResources(id.responderResources).initiatorDepth(id.initiatorDepth).targetAckDelay(15)
                .rnrRetryCount(id.rnrRetryCount).localCaGuid(caGuid);
        putPrivateData(rep, privateData);
        id.state = CmState.REP_SENT;
        sendTracked(id, now, config.responseTimeout());
    }

    /** Refuses a REQ (reason {@link CmRej#CONSUMER_DEFINED} for an application's no), or drops a connection being made. */
    public void reject(CmId id, int reason, byte[] privateData, long now) {
        rej.wrap(out, 0);
        rej.start(id.tid);
        rej.localCommId(id.localCommId).remoteCommId(id.remoteCommId)
                .messageRejected(id.passive ? CmRej.REJECTED_REQ : CmRej.REJECTED_REP).reason(reason);
        putPrivateData(rej, privateData);
        send(id.peer);
        stats.rejectSent();
        if (id.qp != null) id.qp.toError(id);
        forget(id);
    }

    /** Sends a DREQ (retried until a DREP) and moves the QP to ERROR. */
    public void disconnect(CmId id, byte[] privateData, long now) {
        if (id.state != CmState.ESTABLISHED && id.state != CmState.REP_SENT) return; // already going or gone
        dreq.wrap(out, 0);
        dreq.start(((long) tidHigh << 32) | (random.nextInt() & 0xFFFFFFFFL));
        dreq.localCommId(id.localCommId).remoteCommId(id.remoteCommId).remoteQpn(id.remoteQpn);
        putPrivateData(dreq, privateData);
        id.state = CmState.DREQ_SENT;
        id.qp.toError(id);
        sendTracked(id, now, config.responseTimeout());
    }

    /** Active SIDR: which UD QP serves {@code serviceId} at {@code peer}; the answer comes to {@code events}. */
    public CmId sidr(long serviceId, CmPeer peer, CmId.Events events, byte[] privateData, long now) {
        CmId id = new CmId(false);
        id.serviceId = serviceId;
        id.peer = peer;
        id.events = events;
        register(id);
        id.tid = ((long) tidHigh << 32) | (id.localCommId & 0xFFFFFFFFL);
        sidrReq.wrap(out, 0);
        sidrReq.start(id.tid);
        sidrReq.requestId(id.localCommId).partitionKey(0xFFFF).serviceId(serviceId);
        putPrivateData(sidrReq, privateData);
        id.state = CmState.SIDR_REQ_SENT;
        sendTracked(id, now, config.responseTimeout());
        return id;
    }

    // ---------------------------------------------------------------- MADs in

    /** One MAD from {@code from}'s GSI; returns false when it was dropped (not a CM Send this agent understands). */
    public boolean onMad(DirectBuffer b, int o, int length, CmPeer from, long now) {
        stats.madIn();
        if (length < Mad.SIZE || Mad.baseVersion(b, o) != Mad.BASE_VERSION || Mad.mgmtClass(b, o) != Mad.CLASS_CM
                || Mad.classVersion(b, o) != Mad.CM_CLASS_VERSION || Mad.method(b, o) != Mad.METHOD_SEND) {
            stats.drop();
            return false;
        }
        MutableDirectBuffer in = b instanceof MutableDirectBuffer m ? m : new UnsafeBuffer(b, o, Mad.SIZE);
        int base = in == b ? o : 0;
        switch (Mad.attributeId(b, o)) {
            case CmAttribute.REQ -> onReq(in, base, from, now);
            case CmAttribute.REP -> onRep(in, base, from, now);
            case CmAttribute.RTU -> onRtu(in, base, now);
            case CmAttribute.REJ -> onRej(in, base, now);
            case CmAttribute.MRA -> onMra(in, base, now);
            case CmAttribute.DREQ -> onDreq(in, base, from, now);
            case CmAttribute.DREP -> onDrep(in, base, now);
            case CmAttribute.SIDR_REQ -> onSidrReq(in, base, from);
            case CmAttribute.SIDR_REP -> onSidrRep(in, base);
            case CmAttribute.LAP -> onLap(in, base, from);
            default -> {
                stats.drop();
                return false;
            }
        }
        return true;
    }

    private void onReq(MutableDirectBuffer b, int o, CmPeer from, long now) {
        req.wrap(b, o);
        RemoteKey key = new RemoteKey(req.localCommId(), req.localCaGuid());
        CmId dup = byRemote.get(key);
        if (dup != null) {
            stats.duplicate();
            switch (dup.state) {
                case MRA_REQ_SENT -> { // still waiting: the MRA again, and the active side is still asking
                    resend(dup);
                    stats.mraSent();
                    dup.deadline = now + mraWait(dup);
                }
                case REP_SENT -> resend(dup); // the REP was lost: the same answer again
                case TIMEWAIT -> rejectReq(b, o, from, CmRej.STALE_CONN);
                default -> {
                    // still deciding (the MRA timer answers) or established (a late copy)
                }
            }
            return;
        }
        Backlog backlog = listeners.get(req.serviceId());
        if (backlog == null) {
            rejectReq(b, o, from, CmRej.INVALID_SERVICE_ID);
            return;
        }
        if (req.transportServiceType() != CmReq.SERVICE_RC && req.transportServiceType() != CmReq.SERVICE_UC) {
            rejectReq(b, o, from, CmRej.INVALID_TRANSPORT_TYPE);
            return;
        }
        if (backlog.full()) { // refused now, not left to time out: the active side learns at once
            stats.backlogFull();
            rejectReq(b, o, from, CmRej.NO_RESOURCES);
            return;
        }
        CmId id = new CmId(true);
        id.tid = req.transactionId();
        id.remoteCommId = req.localCommId();
        id.remoteCaGuid = req.localCaGuid();
        id.serviceId = req.serviceId();
        id.peer = from;
        id.remoteQpn = req.localQpn();
        id.remotePsn = req.startingPsn();
        id.mtuCode = req.pathMtu();
        // what the active side offers as responder and initiator, seen from here
        id.responderResources = req.initiatorDepth();
        id.initiatorDepth = req.responderResources();
        id.retryCount = req.retryCount();
        id.rnrRetryCount = req.rnrRetryCount();
        id.ackTimeout = req.primaryLocalAckTimeout();
        id.transportType = req.transportServiceType();
        id.remoteGid = req.primaryLocalGid();
        id.localGid = req.primaryRemoteGid();
        id.peerPrivateData = req.privateData();
        id.peerResponseTimeout = req.remoteCmResponseTimeout();
        id.localPsn = random.nextInt(1 << 24);
        id.arrived = now;
        register(id);
        byRemote.put(key, id);
        id.state = CmState.REQ_RCVD;
        // answer within half the active side's wait, or it resends: an MRA then buys the application time
        id.deadline = now + CmConfig.nanos(id.peerResponseTimeout) / 2;
        stats.request();
        backlog.add(id);
        id.backlog = backlog;
        backlog.listener.onRequest(id);
    }

    private void rejectReq(MutableDirectBuffer b, int o, CmPeer from, int reason) {
        req.wrap(b, o);
        long tid = req.transactionId();
        int remote = req.localCommId();
        rej.wrap(out, 0);
        rej.start(tid);
        rej.localCommId(0).remoteCommId(remote).messageRejected(CmRej.REJECTED_REQ).reason(reason);
        send(from);
        stats.rejectSent();
    }

    private void onRep(MutableDirectBuffer b, int o, CmPeer from, long now) {
        rep.wrap(b, o);
        CmId id = byLocalId.get(rep.remoteCommId());
        if (id == null || id.passive) {
            rej.wrap(out, 0);
            rej.start(rep.transactionId());
            rej.localCommId(0).remoteCommId(rep.localCommId()).messageRejected(CmRej.REJECTED_REP).reason(CmRej.INVALID_COMM_ID);
            send(from);
            stats.rejectSent();
            return;
        }
        if (id.state == CmState.ESTABLISHED) { // our RTU was lost: the peer resent its REP
            stats.duplicate();
            resend(id);
            return;
        }
        if (id.state != CmState.REQ_SENT && id.state != CmState.MRA_REQ_RCVD) return;
        id.remoteCommId = rep.localCommId();
        id.remoteCaGuid = rep.localCaGuid();
        id.remoteQpn = rep.localQpn();
        id.remotePsn = rep.startingPsn();
        id.remoteQkey = rep.localQkey();
        // the passive side's answer caps what we may use
        id.initiatorDepth = Math.min(id.initiatorDepth, rep.responderResources());
        id.responderResources = Math.min(id.responderResources, rep.initiatorDepth());
        id.peerPrivateData = rep.privateData();
        try {
            id.qp.toRtr(id);
            id.qp.toRts(id);
        } catch (RuntimeException e) {
            reject(id, CmRej.NO_RESOURCES, null, now);
            id.events.onRejected(id, CmRej.NO_RESOURCES, new byte[0]);
            return;
        }
        rtu.wrap(out, 0);
        rtu.start(id.tid);
        rtu.localCommId(id.localCommId).remoteCommId(id.remoteCommId);
        send(id.peer);
        keepLastSent(id);
        id.state = CmState.ESTABLISHED;
        id.deadline = Long.MAX_VALUE;
        stats.establish();
        id.events.onEstablished(id);
    }

    private void onRtu(MutableDirectBuffer b, int o, long now) {
        rtu.wrap(b, o);
        CmId id = byLocalId.get(rtu.remoteCommId());
        if (id == null || id.state != CmState.REP_SENT) return;
        id.qp.toRts(id);
        id.state = CmState.ESTABLISHED;
        id.deadline = Long.MAX_VALUE;
        stats.establish();
        id.events.onEstablished(id);
    }

    private void onRej(MutableDirectBuffer b, int o, long now) {
        rej.wrap(b, o);
        CmId id = byLocalId.get(rej.remoteCommId());
        if (id == null) return;
        if (id.state == CmState.TIMEWAIT || id.state == CmState.IDLE) return;
        int reason = rej.reason();
        byte[] pd = rej.privateData();
        stats.rejectReceived();
        if (id.qp != null) id.qp.toError(id);
        forget(id);
        if (id.events != null) id.events.onRejected(id, reason, pd);
    }

    private void onMra(MutableDirectBuffer b, int o, long now) {
        mra.wrap(b, o);
        CmId id = byLocalId.get(mra.remoteCommId());
        if (id == null) return;
        long extra = CmConfig.nanos(mra.serviceTimeout()) + CmConfig.nanos(config.responseTimeout());
        boolean reqMraed = id.state == CmState.REQ_SENT || id.state == CmState.MRA_REQ_RCVD;
        if (reqMraed && mra.messageMraed() == CmMra.MRAED_REQ) { // again for a resent REQ: the peer still needs time
            id.state = CmState.MRA_REQ_RCVD;
            id.remoteCommId = mra.localCommId();
            id.deadline = now + extra;
            id.retryWait = extra; // the later resends wait as long (the kernel's ib_modify_mad does the same)
            stats.mraReceived();
        } else if (id.state == CmState.REP_SENT && mra.messageMraed() == CmMra.MRAED_REP) {
            id.deadline = now + extra;
            stats.mraReceived();
        }
    }

    private void onDreq(MutableDirectBuffer b, int o, CmPeer from, long now) {
        dreq.wrap(b, o);
        long tid = dreq.transactionId();
        int remote = dreq.localCommId();
        CmId id = byLocalId.get(dreq.remoteCommId());
        // a DREP answers even a DREQ for a connection we no longer know: the peer must not wait for it
        drep.wrap(out, 0);
        drep.start(tid);
        drep.localCommId(dreq.remoteCommId()).remoteCommId(remote);
        if (id == null) {
            send(from);
            return;
        }
        switch (id.state) {
            case ESTABLISHED, REP_SENT, DREQ_SENT -> {
                boolean wasOpen = id.state != CmState.DREQ_SENT;
                if (wasOpen) id.qp.toError(id);
                send(id.peer);
                keepLastSent(id);
                timewait(id, now);
                id.events.onDisconnected(id);
                if (!wasOpen) stats.disconnectCrossed();
            }
            case TIMEWAIT -> send(id.peer);
            default -> {
            }
        }
    }

    private void onDrep(MutableDirectBuffer b, int o, long now) {
        drep.wrap(b, o);
        CmId id = byLocalId.get(drep.remoteCommId());
        if (id == null || id.state != CmState.DREQ_SENT) return;
        timewait(id, now);
        id.events.onDisconnected(id);
    }

    private void onSidrReq(MutableDirectBuffer b, int o, CmPeer from) {
        sidrReq.wrap(b, o);
        long tid = sidrReq.transactionId();
        int requestId = sidrReq.requestId();
        long sid = sidrReq.serviceId();
        Backlog backlog = listeners.get(sid);
        Listener l = backlog == null ? null : backlog.listener;
        sidrRep.wrap(out, 0);
        sidrRep.start(tid);
        sidrRep.requestId(requestId).serviceId(sid);
        if (l == null || l.sidrQpn() == 0) {
            sidrRep.status(SidrRep.SID_NOT_SUPPORTED);
        } else {
            sidrRep.status(SidrRep.VALID).qpn(l.sidrQpn()).qkey(l.sidrQkey());
        }
        send(from);
    }

    private void onSidrRep(MutableDirectBuffer b, int o) {
        sidrRep.wrap(b, o);
        CmId id = byLocalId.get(sidrRep.requestId());
        if (id == null || id.state != CmState.SIDR_REQ_SENT) return;
        forget(id);
        id.events.onSidrReply(id, sidrRep.status(), sidrRep.qpn(), sidrRep.qkey(), sidrRep.privateData());
    }

    /** Alternate paths do not exist on a RoCE port: a LAP is refused. */
    private void onLap(MutableDirectBuffer b, int o, CmPeer from) {
        long tid = Mad.transactionId(b, o);
        rej.wrap(b, o);
        int remote = rej.localCommId(); // LAP's first two fields sit where REJ's do
        int local = rej.remoteCommId();
        rej.wrap(out, 0);
        rej.start(tid);
        rej.localCommId(local).remoteCommId(remote).messageRejected(CmRej.REJECTED_OTHER).reason(CmRej.UNSUPPORTED);
        send(from);
        stats.rejectSent();
    }

    // ---------------------------------------------------------------- time

    /** Resends what is unanswered, gives up after the last retry, MRAs late answers, ends time-waits. */
    public int poll(long now) {
        expired.clear();
        for (CmId id : byLocalId.values()) if (id.deadline <= now) expired.add(id);
        for (CmId id : expired) onDeadline(id, now);
        return expired.size();
    }

    /** Earliest deadline of any connection (Long.MAX_VALUE when none). */
    public long nextDeadline() {
        long next = Long.MAX_VALUE;
        for (CmId id : byLocalId.values()) next = Math.min(next, id.deadline);
        return next;
    }

    private void onDeadline(CmId id, long now) {
        switch (id.state) {
            case REQ_SENT, MRA_REQ_RCVD, REP_SENT, DREQ_SENT, SIDR_REQ_SENT -> {
                if (id.retriesLeft > 0) {
                    id.retriesLeft--;
                    stats.retry();
                    resend(id);
                    id.deadline = now + id.retryWait;
                    return;
                }
                stats.timeout();
                if (id.state == CmState.DREQ_SENT) { // the peer is gone: the connection is down all the same
                    timewait(id, now);
                    id.events.onDisconnected(id);
                } else if (id.state == CmState.SIDR_REQ_SENT) {
                    forget(id);
                    id.events.onTimeout(id);
                } else {
                    reject(id, CmRej.TIMEOUT, null, now);
                    id.events.onTimeout(id);
                }
            }
            case REQ_RCVD -> {
                mra.wrap(out, 0);
                mra.start(id.tid);
                mra.localCommId(id.localCommId).remoteCommId(id.remoteCommId).messageMraed(CmMra.MRAED_REQ)
                        .serviceTimeout(config.serviceTimeout());
                send(id.peer);
                keepLastSent(id);
                stats.mraSent();
                id.state = CmState.MRA_REQ_SENT;
                id.deadline = now + mraWait(id);
            }
            case MRA_REQ_SENT -> { // no duplicate REQ for a whole MRA wait: the active side gave up, so nobody to answer
                stats.abandon();
                forget(id);
            }
            case TIMEWAIT -> forget(id);
            default -> id.deadline = Long.MAX_VALUE;
        }
    }

    // ---------------------------------------------------------------- helpers

    /** Connections this agent knows (any state). */
    public int connections() {
        return byLocalId.size();
    }

    private void register(CmId id) {
        int local;
        do {
            local = random.nextInt();
        } while (local == 0 || byLocalId.containsKey(local));
        id.localCommId = local;
        byLocalId.put(local, id);
    }

    /**
     * How long an MRAed REQ stays without a duplicate: the active side waits the MRA's service timeout plus its own
     * response timeout before each resend, so twice that without one means it stopped.
     */
    private long mraWait(CmId id) {
        return 2 * (CmConfig.nanos(config.serviceTimeout()) + CmConfig.nanos(id.peerResponseTimeout));
    }

    private void forget(CmId id) {
        if (id.backlog != null) {
            id.backlog.remove(id);
            id.backlog = null;
        }
        id.state = CmState.IDLE;
        id.deadline = Long.MAX_VALUE;
        byLocalId.remove(id.localCommId);
        if (id.passive) byRemote.remove(new RemoteKey(id.remoteCommId, id.remoteCaGuid));
    }

    private void timewait(CmId id, long now) {
        id.state = CmState.TIMEWAIT;
        id.deadline = now + CmConfig.nanos(config.responseTimeout());
    }

    private void putPrivateData(CmMessage m, byte[] data) {
        if (data != null) m.privateData(data, 0, data.length);
    }

    private void sendTracked(CmId id, long now, int timeout) {
        send(id.peer);
        keepLastSent(id);
        id.retriesLeft = config.maxRetries();
        id.retryWait = CmConfig.nanos(config.responseTimeout());
        id.deadline = now + CmConfig.nanos(timeout);
    }

    private void keepLastSent(CmId id) {
        out.getBytes(0, id.lastSent);
        id.haveLastSent = true;
    }

    private void resend(CmId id) {
        if (!id.haveLastSent) return;
        out.putBytes(0, id.lastSent);
        send(id.peer);
    }

    private void send(CmPeer to) {
        stats.madOut();
        transport.send(out, 0, to);
    }
}
