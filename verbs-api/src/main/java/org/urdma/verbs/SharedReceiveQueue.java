package org.urdma.verbs;

/**
 * A shared receive queue. When armed with a limit, the device raises one {@link AsyncEventType#SRQ_LIMIT_REACHED}
 * when the number of posted receives falls below it, then disarms (as {@code ibv_modify_srq} with IBV_SRQ_LIMIT).
 */
public interface SharedReceiveQueue extends AutoCloseable {
    int maxWr();

    void postRecv(ReceiveWorkRequest wr);

    /** Arms the limit event: 0 disarms; must be below {@link #maxWr()}. */
    void armLimit(int limit);

    int limit();

    /** Receives currently posted and not yet consumed. */
    int posted();

    ProtectionDomain pd();

    @Override
    void close();
}
