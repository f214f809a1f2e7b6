package org.urdma.express.session;

import java.time.Duration;
import org.urdma.transport.api.EndpointOptions;
import org.urdma.transport.api.RdmaConnectException;
import org.urdma.transport.api.RdmaConnection;
import org.urdma.transport.api.RdmaServer;
import org.urdma.transport.api.UrdmaDevice;
import org.urdma.transport.cm.WanOffer;

/** Clients connecting by RDMA CM to a device: RC connections, the WAN mode offered unless turned off. */
public final class RdmaListener implements ChannelListener {
    /** How long a client's connection setup may take once it connected. */
    private static final Duration SETUP_TIMEOUT = Duration.ofSeconds(2);
    /** How long an accept waits for a client before it looks again: closing wakes it, so this costs nothing. */
    private static final Duration ACCEPT_WAIT = Duration.ofHours(1);
    private final RdmaServer listener;
    private final EndpointOptions endpoint;

    public RdmaListener(UrdmaDevice device, int port, boolean wan) {
        this.listener = device.listen(port);
        this.endpoint = endpoint(wan ? WanOffer.FULL : WanOffer.NONE, SETUP_TIMEOUT, org.urdma.express.safety.TokenAuth.privateData(null));
    }

    /** The endpoint options both sides use: RC, a deep queue, and the WAN offer. */
    public static EndpointOptions endpoint(WanOffer offer, Duration timeout, byte[] privateData) {
        return EndpointOptions.defaults().withDepth(512).withTimeout(timeout).withWan(offer).withPrivateData(privateData);
    }

    @Override
    public ControlChannel accept() {
        RdmaConnection c;
        try {
            c = listener.accept(endpoint, ACCEPT_WAIT);
        } catch (RdmaConnectException | IllegalStateException e) {
            if (String.valueOf(e.getMessage()).contains("no client")) return null;
            throw e;
        }
        return new RdmaChannel(c, new SessionMemory(c.device().pd()), 256);
    }

    @Override
    public int port() {
        return listener.port();
    }

    @Override
    public String describe() {
        return "rdma on port " + port();
    }

    @Override
    public void close() {
        listener.close();
    }
}
