package org.urdma.express.tcp;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.nio.channels.SocketChannel;
import java.security.SecureRandom;
import java.time.Duration;
import org.urdma.express.session.SessionMemory;

/** A client's side of a TCP session: its streams connected, configured and handshaken. */
public final class TcpConnector {
    private TcpConnector() {
    }

    /**
     * Connects {@code options.streams()} TCP streams to the server at {@code host:port} as one session.
     *
     * @throws UncheckedIOException when a stream cannot be connected (one line naming the server)
     * @throws IllegalStateException when the server refuses the session (its reason)
     * @throws IllegalArgumentException when a socket refuses the congestion control (naming --cc)
     */
    public static TcpChannel connect(String host, int port, TcpOptions options, byte[] privateData, Duration timeout) {
        String where = "tcp " + host + ":" + port;
        InetSocketAddress address = new InetSocketAddress(host, port);
        if (address.isUnresolved()) throw failed(new UnknownHostException(where + ": unknown host"));
        byte[] nonce = new byte[TcpHandshake.NONCE];
        new SecureRandom().nextBytes(nonce);
        int millis = (int) Math.min(Integer.MAX_VALUE, timeout.toMillis());
        int n = options.streams();
        SocketChannel[] s = new SocketChannel[n];
        try {
            for (int i = 0; i < n; i++) {
                s[i] = SocketChannel.open();
                try {
                    TcpOptions.configure(s[i], options.congestion(), options.socketBuffer());
                } catch (IllegalArgumentException e) {
                    throw new IllegalArgumentException("--cc: " + e.getMessage());
                }
                s[i].socket().connect(address, millis);
                new TcpHandshake(n, i, options.congestion() == null ? "" : options.congestion(), nonce, privateData).write(s[i]);
            }
            for (int i = 0; i < n; i++) {
                String refusal = TcpHandshake.readAnswer(s[i], millis);
                if (refusal != null) throw new IllegalStateException("server: " + refusal);
            }
        } catch (IOException e) {
            closeAll(s);
            throw failed(new IOException(where + ": " + (e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage()), e));
        } catch (RuntimeException e) {
            closeAll(s);
            throw e;
        }
        return new TcpChannel(s, SessionMemory.plain(), host + ":" + port, new byte[0]);
    }

    /** {@return the exception a failed connection ends in: its cause carries the one line (the command line prints the cause)} */
    private static UncheckedIOException failed(IOException e) {
        return new UncheckedIOException(e.getMessage(), e);
    }

    static void closeAll(SocketChannel[] s) {
        for (SocketChannel c : s) {
            if (c == null) continue;
            try {
                c.close();
            } catch (IOException ignored) {
                // closing a socket that failed
            }
        }
    }
}
