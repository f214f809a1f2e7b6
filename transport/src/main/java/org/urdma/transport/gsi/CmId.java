package org.urdma.transport.gsi;

/**
 * One connection as the CM sees it (the kernel's ib_cm_id): its state, both sides' communication IDs and QP
 * parameters, and the retry state of the message it last sent. Made by {@link CmAgent#connect} (active side) or by a
 * REQ for a listened service (passive side); its fields are the agent's, read them from the event callbacks.
 */
public final class CmId {
    /** What a connection's QP does as the CM moves (the passive side: RTR on accept, RTS on RTU). */
    public interface Qp {
        int qpn();

        /** INIT → RTR towards the peer in {@code id} (remote QPN, path MTU, GID), receiving from {@code id.localPsn()}. */
        void toRtr(CmId id);

        /** RTR → RTS, sending from {@code id.remotePsn()}: each side's Starting PSN is the one it expects to receive. */
        void toRts(CmId id);

        /** To ERROR: the connection is gone (rejected, timed out, disconnected). */
        void toError(CmId id);
    }

    /** What happened to a connection; called on the thread driving the agent. */
    public interface Events {
        default void onEstablished(CmId id) {
        }

        default void onRejected(CmId id, int reason, byte[] privateData) {
        }

        /** No answer after every retry. */
        default void onTimeout(CmId id) {
        }

        default void onDisconnected(CmId id) {
        }

        default void onSidrReply(CmId id, int status, int qpn, int qkey, byte[] privateData) {
        }
    }

    final boolean passive;
    CmState state = CmState.IDLE;
    int localCommId;
    int remoteCommId;
    long tid;
    long serviceId;
    CmPeer peer;
    Qp qp;
    Events events;
    int localPsn;
    int remoteQpn;
    int remotePsn;
    int remoteQkey;
    /** IB MTU code (1 = 256 ... 5 = 4096). */
    int mtuCode;
    int responderResources;
    int initiatorDepth;
    int retryCount = 7;
    int rnrRetryCount = 7;
    int ackTimeout = 14;
    int transportType = CmReq.SERVICE_RC;
    long remoteCaGuid;
    /** The peer's GID for the QP's address vector, and ours as the REQ named it. */
    byte[] remoteGid;
    byte[] localGid;
    /** The private data the peer sent last (REQ, REP or REJ), whole as the MAD carries it. */
    byte[] peerPrivateData = new byte[0];
    long deadline = Long.MAX_VALUE;
    int retriesLeft;
    /** How long each resend waits for an answer: the response timeout, longer once an MRA asked for more. */
    long retryWait;
    long arrived;
    final byte[] lastSent = new byte[Mad.SIZE];
    boolean haveLastSent;
    /** The listener's backlog a passive REQ waits in until the application takes it; null once taken or gone. */
    Backlog backlog;
    /** The passive side's remote-timeout promise from the REQ (how long the active side waits), and the active's. */
    int peerResponseTimeout;

    CmId(boolean passive) {
        this.passive = passive;
    }

    public CmState state() { return state; }
    public boolean passive() { return passive; }
    public int localCommId() { return localCommId; }
    public int remoteCommId() { return remoteCommId; }
    public long serviceId() { return serviceId; }
    public CmPeer peer() { return peer; }
    public int localPsn() { return localPsn; }
    public int remoteQpn() { return remoteQpn; }
    public int remotePsn() { return remotePsn; }
    public int remoteQkey() { return remoteQkey; }
    public int mtuCode() { return mtuCode; }
    /** Path MTU in bytes. */
    public int mtuBytes() { return 128 << mtuCode; }
    public int responderResources() { return responderResources; }
    public int initiatorDepth() { return initiatorDepth; }
    public int retryCount() { return retryCount; }
    public int rnrRetryCount() { return rnrRetryCount; }
    public int ackTimeout() { return ackTimeout; }
    public int transportType() { return transportType; }
    public byte[] remoteGid() { return remoteGid == null ? null : remoteGid.clone(); }
    public byte[] localGid() { return localGid == null ? null : localGid.clone(); }
    public byte[] peerPrivateData() { return peerPrivateData.clone(); }
    public Qp qp() { return qp; }

    /** Sets what the application answers with (before {@link CmAgent#accept}) or offers (before connect). */
    public CmId qpParameters(int psn, int mtu, int responderResources, int initiatorDepth) {
        this.localPsn = psn & 0xFFFFFF;
        this.mtuCode = mtu;
        this.responderResources = responderResources;
        this.initiatorDepth = initiatorDepth;
        return this;
    }

    @Override
    public String toString() {
        return String.format("CmId[%s %s local 0x%08x remote 0x%08x sid 0x%016x]", passive ? "passive" : "active", state,
                localCommId, remoteCommId, serviceId);
    }
}
