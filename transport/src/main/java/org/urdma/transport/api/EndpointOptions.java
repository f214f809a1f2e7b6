package org.urdma.transport.api;

import java.time.Duration;
import java.util.Objects;
import org.urdma.transport.cm.WanOffer;
import org.urdma.verbs.QpType;

/**
 * The QP a connection gets and how the connection is set up. Immutable; each {@code withX} returns a copy.
 *
 * @param type              {@link QpType#RC} (the default) or {@link QpType#UC}
 * @param depth             send and receive work requests the QP holds
 * @param completionChannel whether the CQs report to a completion channel (event-driven applications)
 * @param privateData       bytes handed to the peer with the connection (at most {@link #MAX_PRIVATE_DATA}), e.g. a
 *                          {@link RemoteRegion}
 * @param timeout           how long connecting, accepting and each step of the exchange may take
 * @param wan               the WAN-mode features this side offers ({@link WanOffer#NONE}: DC mode); the connection runs
 *                          what both offers share, see {@link RdmaConnection#wan()}
 */
public record EndpointOptions(QpType type, int depth, boolean completionChannel, byte[] privateData, Duration timeout, WanOffer wan) {
    /** rdma_cm's limit for a connect request's private data is 56 bytes; urdma allows more. */
    public static final int MAX_PRIVATE_DATA = 1024;

    /** Checks every option, naming the one that is wrong. */
    public EndpointOptions {
        Objects.requireNonNull(type, "type");
        if (type != QpType.RC && type != QpType.UC) throw new IllegalArgumentException("type: RC or UC, was " + type);
        if (depth < 1 || depth > 16384) throw new IllegalArgumentException("depth: must be 1..16384, was " + depth);
        privateData = privateData == null ? new byte[0] : privateData.clone();
        if (privateData.length > MAX_PRIVATE_DATA) {
            throw new IllegalArgumentException("privateData: at most " + MAX_PRIVATE_DATA + " bytes, was " + privateData.length);
        }
        if (timeout == null || timeout.isNegative() || timeout.isZero()) throw new IllegalArgumentException("timeout: must be > 0");
        if (wan == null) wan = WanOffer.NONE;
        if (wan.on() && type != QpType.RC) throw new IllegalArgumentException("wan: RC only, was " + type);
    }

    /** {@return RC, 128 work requests each way, no completion channel, no private data, 10 s, DC mode} */
    public static EndpointOptions defaults() {
        return new EndpointOptions(QpType.RC, 128, false, null, Duration.ofSeconds(10), WanOffer.NONE);
    }

    /** {@return a copy of the private data} */
    @Override
    public byte[] privateData() {
        return privateData.clone();
    }

    /**
     * A copy with this option changed.
     *
     * @param t RC or UC
     * @return a copy with it
     */
    public EndpointOptions withType(QpType t) {
        return new EndpointOptions(t, depth, completionChannel, privateData, timeout, wan);
    }

    /**
     * A copy with this option changed.
     *
     * @param d work requests each way
     * @return a copy with it
     */
    public EndpointOptions withDepth(int d) {
        return new EndpointOptions(type, d, completionChannel, privateData, timeout, wan);
    }

    /**
     * A copy with this option changed.
     *
     * @param on whether the CQs report to a completion channel
     * @return a copy with it
     */
    public EndpointOptions withCompletionChannel(boolean on) {
        return new EndpointOptions(type, depth, on, privateData, timeout, wan);
    }

    /**
     * A copy with this option changed.
     *
     * @param data bytes for the peer, or null for none
     * @return a copy with it
     */
    public EndpointOptions withPrivateData(byte[] data) {
        return new EndpointOptions(type, depth, completionChannel, data, timeout, wan);
    }

    /**
     * A copy with this option changed.
     *
     * @param t how long each step may take
     * @return a copy with it
     */
    public EndpointOptions withTimeout(Duration t) {
        return new EndpointOptions(type, depth, completionChannel, privateData, t, wan);
    }

    /**
     * A copy with this option changed.
     *
     * @param w the WAN-mode features to offer, or {@link WanOffer#NONE}
     * @return a copy with it
     */
    public EndpointOptions withWan(WanOffer w) {
        return new EndpointOptions(type, depth, completionChannel, privateData, timeout, w);
    }
}
