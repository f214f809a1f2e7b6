package org.urdma.express.tcp;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.HexFormat;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.urdma.express.session.ChannelListener;
import org.urdma.express.session.ControlChannel;
import org.urdma.express.session.SessionMemory;
import org.urdma.nativeio.SocketBuffers;

/**
 * A server's TCP port: accepts streams, reads each one's handshake on a thread of its own (a slow client holds up
 * nobody else), sets the congestion control its client asks for, and hands a session over once all its streams came.
 */
public final class TcpListener implements ChannelListener {
    private static final int HANDSHAKE_MILLIS = 10_000;
    /** A session whose streams did not all come within this is dropped. */
    private static final long GROUP_NANOS = 30_000_000_000L;

    private final ServerSocketChannel server;
    private final int socketBuffer;
    private final Consumer<String> log;
    private final LinkedBlockingQueue<TcpChannel> ready = new LinkedBlockingQueue<>();
    private final Map<String, Group> groups = new LinkedHashMap<>();
    private final Thread acceptor;
    private volatile boolean closed;

    private static final class Group {
        final SocketChannel[] streams;
        final long started = System.nanoTime();
        byte[] privateData = new byte[0];
        int count;

        Group(int n) {
            streams = new SocketChannel[n];
        }
    }

    /**
     * Listens on {@code port} (0: any free one) of every address.
     *
     * @param socketBuffer SO_RCVBUF and SO_SNDBUF of every socket, 0 for the kernel's autotuning
     */
    public TcpListener(int port, int socketBuffer, Consumer<String> log) {
        this.socketBuffer = socketBuffer;
        this.log = log;
        try {
            server = ServerSocketChannel.open();
            server.setOption(StandardSocketOptions.SO_REUSEADDR, true);
            if (socketBuffer > 0 && !SocketBuffers.force(server, socketBuffer)) { // before listen: the window scale follows it
                server.setOption(StandardSocketOptions.SO_RCVBUF, socketBuffer);
            }
            server.bind(new InetSocketAddress(port), 128);
        } catch (IOException e) {
            throw new UncheckedIOException("--tcp-port " + port + ": " + e.getMessage(), e);
        }
        acceptor = Thread.ofPlatform().daemon().name("urdma-tcp-accept").start(this::acceptLoop);
    }

    private void acceptLoop() {
        while (!closed) {
            SocketChannel s;
            try {
                s = server.accept();
            } catch (ClosedChannelException e) {
                return;
            } catch (IOException e) {
                if (!closed) log.accept("tcp accept: " + e.getMessage());
                continue;
            }
            Thread.ofPlatform().daemon().name("urdma-tcp-handshake").start(() -> handshake(s));
        }
    }

    private void handshake(SocketChannel s) {
        String who = remote(s);
        try {
            TcpHandshake h = TcpHandshake.read(s, HANDSHAKE_MILLIS);
            String cc = h.congestion().isEmpty() ? null : h.congestion();
            try {
                TcpOptions.configure(s, cc, socketBuffer);
            } catch (RuntimeException e) { // not offered here, not allowed, or refused by the kernel
                refuse(s, who, "--cc " + cc + " at the server: " + e.getMessage());
                return;
            }
            String key = HexFormat.of().formatHex(h.nonce());
            if (!reserve(key, h, s)) {
                refuse(s, who, "stream " + h.index() + " of " + h.streams() + " does not fit its session");
                return;
            }
            TcpHandshake.answer(s, null);
            answered(key); // the session starts once every stream has its answer: nothing else is written on it before
        } catch (IOException | RuntimeException e) {
            log.accept("tcp " + who + ": " + (e.getMessage() == null ? e.toString() : e.getMessage()));
            TcpConnector.closeAll(new SocketChannel[] {s});
        }
    }

    private void refuse(SocketChannel s, String who, String reason) throws IOException {
        log.accept("refused tcp " + who + ": " + reason);
        TcpHandshake.answer(s, reason);
        TcpConnector.closeAll(new SocketChannel[] {s});
    }

    private static String remote(SocketChannel s) {
        try {
            return String.valueOf(s.getRemoteAddress());
        } catch (IOException e) {
            return "?";
        }
    }

    /** {@return false when the stream does not fit the session its nonce names} */
    private synchronized boolean reserve(String key, TcpHandshake h, SocketChannel s) {
        dropStale();
        Group g = groups.computeIfAbsent(key, k -> new Group(h.streams()));
        if (g.streams.length != h.streams() || g.streams[h.index()] != null) return false;
        g.streams[h.index()] = s;
        if (h.index() == 0) g.privateData = h.privateData();
        return true;
    }

    private synchronized void answered(String key) {
        Group g = groups.get(key);
        if (g == null) return; // dropped as stale meanwhile
        if (++g.count == g.streams.length) {
            groups.remove(key);
            if (closed) {
                TcpConnector.closeAll(g.streams);
            } else {
                ready.add(new TcpChannel(g.streams, SessionMemory.plain(), remote(g.streams[0]), g.privateData));
            }
        }
    }

    private void dropStale() {
        long now = System.nanoTime();
        for (Iterator<Group> it = groups.values().iterator(); it.hasNext(); ) {
            Group g = it.next();
            if (now - g.started > GROUP_NANOS) {
                TcpConnector.closeAll(g.streams);
                it.remove();
            }
        }
    }

    @Override
    public ControlChannel accept() {
        try {
            return ready.poll(100, TimeUnit.MILLISECONDS); // short: a closing server waits for this call
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return null;
        }
    }

    @Override
    public int port() {
        return server.socket().getLocalPort();
    }

    @Override
    public String describe() {
        return "tcp on port " + port();
    }

    @Override
    public void close() {
        closed = true;
        try {
            server.close();
        } catch (IOException ignored) {
            // closing the listener
        }
        try {
            acceptor.join(5000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        synchronized (this) {
            for (Group g : groups.values()) TcpConnector.closeAll(g.streams);
            groups.clear();
        }
        for (TcpChannel c; (c = ready.poll()) != null; ) c.close();
    }
}
