package org.urdma.verbs;

/**
 * A queue pair ({@code ibv_qp}). Posting copies the request into the queue and returns at once; the device
 * moves the bytes and reports through the CQs. One thread posts to a queue at a time.
 */
public interface QueuePair extends AutoCloseable {
    int qpNum();

    QpType type();

    QpState state();

    ProtectionDomain pd();

    /** Applies the attributes named in {@code mask}, validated as {@code ibv_modify_qp} (see {@link QpTransitions}). */
    void modify(QpAttributes attributes, int mask);

    /** The current attributes (a copy). */
    QpAttributes query();

    /**
     * Posts a send request. Throws IllegalArgumentException (bad request) or IllegalStateException
     * (QP state, queue full) naming the field and rule, like the errno of {@code ibv_post_send}.
     */
    void postSend(SendWorkRequest wr);

    /**
     * Binds type 1 window {@code mw} to {@code bind}'s range ({@code ibv_bind_mw}): posts a {@link WrOpcode#BIND_MW}
     * request with the next key ({@link MemoryWindow#incRkey}) and returns that rkey, which the window reports from now on.
     * The bind completes in order with the QP's other work ({@link WcOpcode#BIND_MW}, or {@link WcStatus#MW_BIND_ERR}).
     * Throws IllegalArgumentException naming the field for a type 2 window, a region in another protection domain or
     * without {@link AccessFlags#MW_BIND}, a range outside the region, or rights the region cannot back.
     */
    int bindMw(MemoryWindow mw, MwBind bind);

    /** Posts a receive request (not allowed when the QP uses an SRQ). */
    void postRecv(ReceiveWorkRequest wr);

    /**
     * Attaches this UD QP to multicast group {@code mgid}, as {@code ibv_attach_mcast}: the port accepts the group's
     * MAC and every SEND to the group (DestQP 0xFFFFFF) lands on each attached QP. {@code lid} is unused on RoCE.
     * Throws IllegalArgumentException naming the field for a non-UD QP or a GID that is no multicast group.
     */
    void attachMcast(Gid mgid, int lid);

    /** Detaches this QP from {@code mgid}, as {@code ibv_detach_mcast}; throws naming the field when it is not attached. */
    void detachMcast(Gid mgid, int lid);

    @Override
    void close();
}
