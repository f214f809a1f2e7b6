package org.urdma.transport.api;

import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import org.urdma.transport.gsi.CmId;

/** An rdma_cm listener on one port (rdma_listen): each REQ is accepted or rejected in arrival order. */
public final class RdmaCmListener implements AutoCloseable {
    private final RdmaCm cm;
    private final long serviceId;
    private final BlockingQueue<CmId> requests;

    RdmaCmListener(RdmaCm cm, long serviceId, BlockingQueue<CmId> requests) {
        this.cm = cm;
        this.serviceId = serviceId;
        this.requests = requests;
    }

    /**
     * Waits up to {@code options.timeout()} for a REQ, then accepts it with a new QP (RTR with the REP, RTS when the RTU
     * comes) and {@code options.privateData()} (at most 196 bytes); the client's private data is the connection's.
     *
     * @param options the QP to make, the private data to answer with and how long to wait for a REQ
     * @return the connection, its QP in RTS (the client's RTU arrived)
     */
    public RdmaConnection accept(EndpointOptions options) {
        return cm.accept(next(options), options);
    }

    /**
     * Accepts a REQ from {@link #nextRequest} with a new QP, as {@link #accept(EndpointOptions)} does: a server that
     * takes requests on one thread and makes each connection on another (rping -P) serves clients side by side.
     *
     * @param request the REQ, from {@link #nextRequest}
     * @param options the QP to make, the private data to answer with and how long to wait for the RTU
     * @return the connection, its QP in RTS
     */
    public RdmaConnection accept(CmId request, EndpointOptions options) {
        return cm.accept(request, options);
    }

    /**
     * Accepts a REQ as {@link #accept(CmId, EndpointOptions)} does, handing the new QP to {@code inInit} before the REP
     * goes out: receives posted there wait for the client's first SEND, as a librdmacm server posts them before
     * rdma_accept.
     *
     * @param request the REQ, from {@link #nextRequest}
     * @param options the QP to make, the private data to answer with and how long to wait for the RTU
     * @param inInit  called with the QP in INIT, before the REP
     * @return the connection, its QP in RTS
     */
    public RdmaConnection accept(CmId request, EndpointOptions options, java.util.function.Consumer<org.urdma.verbs.QueuePair> inInit) {
        return cm.accept(request, options, inInit);
    }

    /**
     * Waits for a REQ and refuses it (REJ, reason 28 "consumer defined": rdma_reject).
     *
     * @param options how long to wait, and the private data the REJ carries (at most 148 bytes)
     */
    public void reject(EndpointOptions options) {
        cm.reject(next(options), options.privateData());
    }

    /**
     * Refuses a REQ from {@link #nextRequest} (REJ, reason 28 "consumer defined": rdma_reject).
     *
     * @param request     the REQ
     * @param privateData what the REJ carries (at most 148 bytes)
     */
    public void reject(CmId request, byte[] privateData) {
        cm.reject(request, privateData);
    }

    private CmId next(EndpointOptions options) {
        return nextRequest(options.timeout());
    }

    /**
     * Waits for the next REQ, for {@link RdmaCm#acceptQp} with a QP of the caller's (or {@link RdmaCm#disconnect}).
     *
     * @param timeout how long to wait
     * @return the request: its private data (rdma_cm's IP header first), offered MTU and RDMA READ depths
     */
    public CmId nextRequest(java.time.Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        try {
            while (true) {
                CmId id = requests.poll(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
                if (id == null) throw new RdmaConnectException("accept: no connection request within " + timeout.toMillis() + " ms", null);
                if (cm.take(id)) return id; // else its client gave up while it waited: the next one
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new RdmaConnectException("accept: interrupted", e);
        }
    }

    /** Stops listening; REQs still waiting for the application are rejected at once (REJ reason 28). */
    @Override
    public void close() {
        cm.unlisten(serviceId);
    }
}
