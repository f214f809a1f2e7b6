package org.urdma.express.receiver;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import org.urdma.express.ServeOptions;
import org.urdma.express.safety.SafePaths;
import org.urdma.express.session.ChannelListener;
import org.urdma.express.session.ControlChannel;
import org.urdma.express.session.RdmaListener;
import org.urdma.transport.api.EndpointOptions;
import org.urdma.transport.api.UrdmaDevice;
import org.urdma.transport.cm.WanOffer;

/**
 * {@code urdma serve}: accepts clients on one or more transports (RDMA on a device, kernel TCP) and runs each one's
 * session on a thread of its own.
 */
public final class Server implements AutoCloseable {
    private final List<ChannelListener> listeners;
    private final ServeOptions options;
    private final SafePaths safe;
    private final Consumer<String> log;
    private final List<Thread> acceptors = new ArrayList<>();
    private final Set<Thread> sessions = ConcurrentHashMap.newKeySet();
    private final AtomicInteger served = new AtomicInteger();
    private final SessionRegistry registry = new SessionRegistry();
    private volatile boolean closed;
    private final java.util.concurrent.atomic.AtomicBoolean killed = new java.util.concurrent.atomic.AtomicBoolean();

    /** Serves RDMA clients of {@code device} on {@code port} (0: any free one). */
    public Server(UrdmaDevice device, int port, ServeOptions options, Consumer<String> log) throws IOException {
        this(List.of(new RdmaListener(device, port, options.wan())), options, log);
    }

    /** Serves the clients of every listener (it closes them). */
    public Server(List<ChannelListener> listeners, ServeOptions options, Consumer<String> log) throws IOException {
        this.options = options;
        this.safe = new SafePaths(options.root());
        this.log = log;
        this.listeners = List.copyOf(listeners);
        for (ChannelListener l : this.listeners) acceptors.add(Thread.ofPlatform().daemon().name("urdma-serve").start(() -> acceptLoop(l)));
    }

    /** {@return the port clients of the first listener connect to} */
    public int port() {
        return listeners.get(0).port();
    }

    /** {@return the transports served and their ports} */
    public String describe() {
        return String.join(", ", listeners.stream().map(ChannelListener::describe).toList());
    }

    /** {@return sessions running now} */
    public int activeSessions() {
        return sessions.size();
    }

    /** {@return sessions that ended} */
    public int sessionsEnded() {
        return served.get();
    }

    /** The endpoint options both sides use: RC, a deep queue, and the WAN offer. */
    public static EndpointOptions endpoint(boolean wan, Duration timeout, byte[] privateData) {
        return RdmaListener.endpoint(wan ? WanOffer.FULL : WanOffer.NONE, timeout, privateData);
    }

    private void acceptLoop(ChannelListener listener) {
        while (!closed) {
            ControlChannel c;
            try {
                c = listener.accept();
            } catch (RuntimeException e) {
                if (!closed) log.accept("accept: " + e.getMessage());
                continue;
            }
            if (c == null) continue;
            Thread t = Thread.ofPlatform().daemon().name("urdma-session").unstarted(() -> {
                try {
                    new ReceiverSession(c, options, safe, log, killed, registry).run();
                } finally {
                    sessions.remove(Thread.currentThread());
                    served.incrementAndGet();
                }
            });
            sessions.add(t);
            t.start();
        }
    }

    /**
     * Ends every session at once, as a crash would (a test's stand-in for kill -9): nothing more is written,
     * journaled or answered; what is durable stays.
     */
    public void kill() {
        killed.set(true);
        close();
    }

    /** {@return whether an accepting thread still runs} */
    boolean accepting() {
        return acceptors.stream().anyMatch(Thread::isAlive);
    }

    /** Stops accepting at once (closing a listener wakes its acceptor) and waits for the running sessions (they end when their clients do, or go silent). */
    @Override
    public void close() {
        closed = true;
        registry.closing();
        for (ChannelListener l : listeners) l.close();
        try {
            for (Thread a : acceptors) a.join(5000);
            for (Thread t : sessions) t.join(options.idleTimeout().toMillis() + 5000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
