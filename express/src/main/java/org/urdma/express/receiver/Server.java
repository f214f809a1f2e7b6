package org.urdma.express.receiver;

import java.io.IOException;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import org.urdma.express.ServeOptions;
import org.urdma.express.safety.SafePaths;
import org.urdma.express.safety.TokenAuth;
import org.urdma.transport.api.EndpointOptions;
import org.urdma.transport.api.RdmaConnectException;
import org.urdma.transport.api.RdmaConnection;
import org.urdma.transport.api.RdmaServer;
import org.urdma.transport.api.UrdmaDevice;
import org.urdma.transport.cm.WanOffer;

/** {@code urdma serve}: accepts clients on a device and runs each one's session on a thread of its own. */
public final class Server implements AutoCloseable {
    /** How long a client's connection setup may take once it connected. */
    private static final Duration SETUP_TIMEOUT = Duration.ofSeconds(2);
    /** How long the acceptor waits for a client before it looks again: closing wakes it, so this costs nothing. */
    private static final Duration ACCEPT_WAIT = Duration.ofHours(1);
    private final RdmaServer listener;
    private final ServeOptions options;
    private final SafePaths safe;
    private final Consumer<String> log;
    private final Thread acceptor;
    private final Set<Thread> sessions = ConcurrentHashMap.newKeySet();
    private final AtomicInteger served = new AtomicInteger();
    private final SessionRegistry registry = new SessionRegistry();
    private volatile boolean closed;
    private final java.util.concurrent.atomic.AtomicBoolean killed = new java.util.concurrent.atomic.AtomicBoolean();

    public Server(UrdmaDevice device, int port, ServeOptions options, Consumer<String> log) throws IOException {
        this.options = options;
        this.safe = new SafePaths(options.root());
        this.log = log;
        this.listener = device.listen(port);
        this.acceptor = Thread.ofPlatform().daemon().name("urdma-serve").start(this::acceptLoop);
    }

    /** {@return the TCP port clients connect to} */
    public int port() {
        return listener.port();
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
        return endpoint(wan ? WanOffer.FULL : WanOffer.NONE, timeout, privateData);
    }

    /** The endpoint options with this WAN offer (a client's, with its reference rate). */
    public static EndpointOptions endpoint(WanOffer offer, Duration timeout, byte[] privateData) {
        return EndpointOptions.defaults().withDepth(512).withTimeout(timeout).withWan(offer).withPrivateData(privateData);
    }

    private void acceptLoop() {
        EndpointOptions eo = endpoint(options.wan(), SETUP_TIMEOUT, TokenAuth.privateData(null));
        while (!closed) {
            RdmaConnection c;
            try {
                c = listener.accept(eo, ACCEPT_WAIT);
            } catch (RdmaConnectException | IllegalStateException e) {
                if (!closed && !String.valueOf(e.getMessage()).contains("no client")) log.accept("accept: " + e.getMessage());
                continue;
            } catch (RuntimeException e) {
                if (!closed) log.accept("accept: " + e.getMessage());
                continue;
            }
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

    /** {@return whether the accepting thread still runs} */
    boolean accepting() {
        return acceptor.isAlive();
    }

    /** Stops accepting at once (closing the listener wakes the acceptor) and waits for the running sessions (they end when their clients do, or go silent). */
    @Override
    public void close() {
        closed = true;
        registry.closing();
        listener.close();
        try {
            acceptor.join(5000);
            for (Thread t : sessions) t.join(options.idleTimeout().toMillis() + 5000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
