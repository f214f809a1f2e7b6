package org.urdma.transport.api;

import java.time.Duration;
import org.urdma.transport.cm.ConnectionException;
import org.urdma.transport.cm.ConnectionManager;
import org.urdma.transport.cm.ExchangeChannel;

/** A listening endpoint (rdma_listen): {@link #accept} gives one connected QP per client, in arrival order. */
public final class RdmaServer implements AutoCloseable {
    private final UrdmaDevice device;
    private final ConnectionManager cm;
    private final ConnectionManager.Listener listener;

    RdmaServer(UrdmaDevice device, ConnectionManager cm, ConnectionManager.Listener listener) {
        this.device = device;
        this.cm = cm;
        this.listener = listener;
    }

    /** {@return the device accepted connections' QPs are on (register advertised memory in its {@link UrdmaDevice#pd()})} */
    public UrdmaDevice device() {
        return device;
    }

    /** {@return the TCP port clients connect to} */
    public int port() {
        return listener.localAddress().getPort();
    }

    /**
     * Waits up to {@code options.timeout()} for a client (less when this server is closed meanwhile), then connects a new QP to it, sending
     * {@code options.privateData()} and receiving the client's.
     *
     * @param options the QP to make and the private data to send
     * @return the connection, its QP in RTS
     * @throws RdmaConnectException naming what failed: no client in time, the client closed or vanished, or it
     *                              spoke another format
     */
    public RdmaConnection accept(EndpointOptions options) {
        return accept(options, options.timeout());
    }

    /**
     * As {@link #accept(EndpointOptions)}, waiting up to {@code wait} for a client (the connection's setup then has
     * {@code options.timeout()}); returns at once, throwing, when this server is closed meanwhile.
     *
     * @param options the QP to make and the private data to send
     * @param wait    how long to wait for a client
     * @return the connection, its QP in RTS
     * @throws RdmaConnectException naming what failed: no client in time, the server closed, the client closed or
     *                              vanished, or it spoke another format
     */
    public RdmaConnection accept(EndpointOptions options, Duration wait) {
        try {
            ExchangeChannel c = listener.accept(wait);
            return RdmaConnection.establish(device, null, c, options);
        } catch (ConnectionException e) {
            throw new RdmaConnectException(e.getMessage(), e);
        }
    }

    /** Stops listening and closes the out-of-band side of accepted connections: their QPs keep working, barriers fail. */
    @Override
    public void close() {
        listener.close();
        cm.close();
    }
}
