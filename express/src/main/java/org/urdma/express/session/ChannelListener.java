package org.urdma.express.session;

/** Where a server's clients come in, for one transport: each accepted client as its session's channel. */
public interface ChannelListener extends AutoCloseable {
    /**
     * Waits a while for the next client.
     *
     * @return its channel, or null when none came within the wait
     * @throws RuntimeException a client's connection failed (one line; the listener goes on)
     */
    ControlChannel accept();

    /** {@return the port clients connect to} */
    int port();

    /** {@return the transport and port, as the server's start line names them} */
    String describe();

    /** Stops accepting; a blocked {@link #accept} returns. */
    @Override
    void close();
}
