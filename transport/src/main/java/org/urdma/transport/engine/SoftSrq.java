package org.urdma.transport.engine;

import org.urdma.verbs.AsyncEventType;
import org.urdma.verbs.ProtectionDomain;
import org.urdma.verbs.ReceiveWorkRequest;
import org.urdma.verbs.SharedReceiveQueue;

/** A shared receive queue with the limit event of {@code ibv_modify_srq(IBV_SRQ_LIMIT)}. */
public final class SoftSrq implements SharedReceiveQueue {
    private final SoftPd pd;
    final RecvQueue rq;
    private volatile int limit;

    SoftSrq(SoftPd pd, int maxWr, int maxSge) {
        this.pd = pd;
        this.rq = new RecvQueue(maxWr, maxSge);
    }

    @Override
    public int maxWr() {
        return rq.size;
    }

    @Override
    public void postRecv(ReceiveWorkRequest wr) {
        rq.put(wr, -1);
    }

    @Override
    public void armLimit(int limit) {
        if (limit < 0 || limit >= rq.size) {
            throw new IllegalArgumentException("srq_limit: must be 0..max_wr-1 (" + (rq.size - 1) + "), was " + limit);
        }
        this.limit = limit;
    }

    @Override
    public int limit() {
        return limit;
    }

    @Override
    public int posted() {
        return rq.posted();
    }

    /** Engine: after consuming a receive, raise the limit event once when below the armed limit. */
    void afterConsume() {
        int l = limit;
        if (l > 0 && rq.posted() < l) {
            limit = 0;
            pd.softDevice().raise(AsyncEventType.SRQ_LIMIT_REACHED, this);
        }
    }

    @Override
    public ProtectionDomain pd() {
        return pd;
    }

    @Override
    public void close() {
        // no resources beyond the arrays
    }
}
