package org.urdma.transport.cm;

import java.io.IOException;
import java.net.Socket;
import java.net.SocketTimeoutException;
import jdk.net.ExtendedSocketOptions;

/**
 * TCP keepalive of the out-of-band exchange. Between two barriers a side may wait for the whole of the peer's run
 * with nothing on the TCP connection; a peer that vanished without closing it (link cut, host crash) would never
 * be noticed. With these settings the kernel probes after {@value #IDLE_SECONDS} s of silence, then every
 * {@value #INTERVAL_SECONDS} s, and fails the socket (ETIMEDOUT) when {@value #COUNT} probes went unanswered:
 * {@value #BOUND_SECONDS} s after the peer's last segment. A live peer's kernel answers probes even when its
 * process is busy, so a long run is not mistaken for a dead peer.
 */
public final class Keepalive {
    public static final int IDLE_SECONDS = 5;
    public static final int INTERVAL_SECONDS = 1;
    public static final int COUNT = 5;
    /** How long after the peer's last segment a vanished peer is declared gone. */
    public static final int BOUND_SECONDS = IDLE_SECONDS + INTERVAL_SECONDS * COUNT;

    private Keepalive() {
    }

    /** Turns keepalive on with the settings above (a plain socket: perftest's exchange). */
    public static void apply(Socket s) throws IOException {
        s.setKeepAlive(true);
        s.setOption(ExtendedSocketOptions.TCP_KEEPIDLE, IDLE_SECONDS);
        s.setOption(ExtendedSocketOptions.TCP_KEEPINTERVAL, INTERVAL_SECONDS);
        s.setOption(ExtendedSocketOptions.TCP_KEEPCOUNT, COUNT);
    }

    /** True if {@code e} is the kernel giving up on the connection (ETIMEDOUT), not a read timeout of ours. */
    public static boolean peerVanished(Throwable e) {
        Throwable t = ConnectionManager.rootCause(e);
        return t instanceof IOException && !(t instanceof SocketTimeoutException) && t.getMessage() != null
                && t.getMessage().contains("timed out");
    }

    /** What a vanished peer's failure says, one line. */
    public static String vanished(String peer) {
        return "the peer " + peer + " vanished: no answer to TCP keepalive for " + BOUND_SECONDS
                + " s (link cut or host down)";
    }
}
