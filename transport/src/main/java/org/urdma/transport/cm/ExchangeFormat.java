package org.urdma.transport.cm;

/**
 * A wire format for the out-of-band QP exchange. Pluggable so urdma can talk to itself
 * ({@link UrdmaExchangeFormat}) or to stock tools: perftest 6.06's TCP exchange, ibv_rc_pingpong's message.
 * Implementations are stateless sequences of {@link ExchangeChannel} reads and writes.
 */
public interface ExchangeFormat {
    /** Short name for the CLI and messages (e.g. "urdma", "perftest", "pingpong"). */
    String name();

    /**
     * Everything up to the point both sides can bring their QP to RTR: returns the peer's endpoint.
     *
     * @throws ConnectionException if the peer's messages are malformed or incompatible (naming the field)
     */
    QpEndpoint exchange(ExchangeChannel channel, QpEndpoint local);

    /** A synchronisation point (after RTS, after a run): returns when the peer reached it too. */
    void barrier(ExchangeChannel channel, QpEndpoint local, String step);

    /** The closing handshake before the channel is closed. */
    void finish(ExchangeChannel channel);
}
