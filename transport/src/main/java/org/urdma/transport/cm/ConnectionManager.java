package org.urdma.transport.cm;

import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.IoHandlerFactory;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.ServerChannel;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.nio.NioChannelOption;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import jdk.net.ExtendedSocketOptions;

/**
 * The out-of-band TCP side of connection setup on Netty: io_uring when its native library loads, else epoll,
 * else NIO. Gives blocking, time-bounded {@link ExchangeChannel}s to run an {@link ExchangeFormat} over.
 * Sockets are created on the calling thread, so a thread inside a network namespace (Netns.run) listens or
 * connects inside it. Every connection has TCP keepalive ({@link Keepalive}): a peer that vanishes without closing
 * it fails the next (or current) read within {@link Keepalive#BOUND_SECONDS} s. Control path only.
 */
public final class ConnectionManager implements AutoCloseable {
    /** perftest's default port. */
    public static final int DEFAULT_PORT = 18515;

    /** Timeouts: connecting (refused connections are retried until then), and each read of the exchange. */
    public record Config(Duration connectTimeout, Duration readTimeout) {
        public Config {
            if (connectTimeout == null || connectTimeout.isNegative() || connectTimeout.isZero()) {
                throw new IllegalArgumentException("connectTimeout: must be > 0");
            }
            if (readTimeout == null || readTimeout.isNegative() || readTimeout.isZero()) {
                throw new IllegalArgumentException("readTimeout: must be > 0");
            }
        }

        public static Config defaults() {
            return new Config(Duration.ofSeconds(10), Duration.ofSeconds(10));
        }
    }

    private final Config config;
    private final EventLoopGroup group;
    private final String transport;
    private final Supplier<Channel> clientChannels;
    private final Supplier<ServerChannel> serverChannels;
    /** Keepalive (Keepalive's settings) and, where the transport has it, TCP_USER_TIMEOUT for unacknowledged data. */
    private final Map<ChannelOption<?>, Object> liveness = new LinkedHashMap<>();

    public ConnectionManager(Config config) {
        this.config = config;
        String t;
        IoHandlerFactory f;
        Supplier<Channel> cc;
        Supplier<ServerChannel> sc;
        if (available("io.netty.channel.uring.IoUring")) {
            t = "io_uring";
            f = io.netty.channel.uring.IoUringIoHandler.newFactory();
            cc = io.netty.channel.uring.IoUringSocketChannel::new;
            sc = io.netty.channel.uring.IoUringServerSocketChannel::new;
            liveness.put(io.netty.channel.uring.IoUringChannelOption.TCP_KEEPIDLE, Keepalive.IDLE_SECONDS);
            liveness.put(io.netty.channel.uring.IoUringChannelOption.TCP_KEEPINTVL, Keepalive.INTERVAL_SECONDS);
            liveness.put(io.netty.channel.uring.IoUringChannelOption.TCP_KEEPCNT, Keepalive.COUNT);
            liveness.put(io.netty.channel.uring.IoUringChannelOption.TCP_USER_TIMEOUT, Keepalive.BOUND_SECONDS * 1000);
        } else if (available("io.netty.channel.epoll.Epoll")) {
            t = "epoll";
            f = io.netty.channel.epoll.EpollIoHandler.newFactory();
            cc = io.netty.channel.epoll.EpollSocketChannel::new;
            sc = io.netty.channel.epoll.EpollServerSocketChannel::new;
            liveness.put(io.netty.channel.epoll.EpollChannelOption.TCP_KEEPIDLE, Keepalive.IDLE_SECONDS);
            liveness.put(io.netty.channel.epoll.EpollChannelOption.TCP_KEEPINTVL, Keepalive.INTERVAL_SECONDS);
            liveness.put(io.netty.channel.epoll.EpollChannelOption.TCP_KEEPCNT, Keepalive.COUNT);
            liveness.put(io.netty.channel.epoll.EpollChannelOption.TCP_USER_TIMEOUT, Keepalive.BOUND_SECONDS * 1000);
        } else {
            t = "nio";
            f = NioIoHandler.newFactory();
            cc = NioSocketChannel::new;
            sc = NioServerSocketChannel::new;
            liveness.put(NioChannelOption.of(ExtendedSocketOptions.TCP_KEEPIDLE), Keepalive.IDLE_SECONDS);
            liveness.put(NioChannelOption.of(ExtendedSocketOptions.TCP_KEEPINTERVAL), Keepalive.INTERVAL_SECONDS);
            liveness.put(NioChannelOption.of(ExtendedSocketOptions.TCP_KEEPCOUNT), Keepalive.COUNT);
        }
        liveness.put(ChannelOption.SO_KEEPALIVE, true);
        this.transport = t;
        this.clientChannels = cc;
        this.serverChannels = sc;
        this.group = new MultiThreadIoEventLoopGroup(1, f);
    }

    public ConnectionManager() {
        this(Config.defaults());
    }

    /** Whether a Netty native transport's {@code isAvailable()} says its library loaded. */
    private static boolean available(String cls) {
        try {
            return (Boolean) Class.forName(cls).getMethod("isAvailable").invoke(null);
        } catch (Throwable e) {
            return false;
        }
    }

    /** Why a native transport is not available (its {@code unavailabilityCause()}), or "available". */
    public static String unavailabilityCause(String transport) {
        String cls = switch (transport) {
            case "io_uring" -> "io.netty.channel.uring.IoUring";
            case "epoll" -> "io.netty.channel.epoll.Epoll";
            default -> throw new IllegalArgumentException("transport: io_uring or epoll, was '" + transport + "'");
        };
        try {
            Object cause = Class.forName(cls).getMethod("unavailabilityCause").invoke(null);
            return cause == null ? "available" : String.valueOf(cause);
        } catch (Throwable e) {
            return e.toString();
        }
    }

    /** The Netty transport a ConnectionManager made now would use: "io_uring", "epoll" or "nio" (cheap after the first call). */
    public static String nettyTransport() {
        return available("io.netty.channel.uring.IoUring") ? "io_uring" : available("io.netty.channel.epoll.Epoll") ? "epoll" : "nio";
    }

    /** "io_uring", "epoll" or "nio". */
    public String transport() {
        return transport;
    }

    public Config config() {
        return config;
    }

    /** Connects to {@code peer}, retrying refused connections until the connect timeout (the server may start later). */
    public ExchangeChannel connect(InetSocketAddress peer) {
        long deadline = System.nanoTime() + config.connectTimeout().toNanos();
        Throwable last = null;
        while (System.nanoTime() - deadline < 0) {
            StreamHandler h = new StreamHandler(true, peer.toString(), config.readTimeout());
            long left = Math.max(1, (deadline - System.nanoTime()) / 1_000_000);
            Bootstrap b = new Bootstrap().group(group).channelFactory(clientChannels::get)
                    .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, (int) Math.min(Integer.MAX_VALUE, left))
                    .option(ChannelOption.TCP_NODELAY, true)
                    .handler(h);
            liveness.forEach((k, v) -> b.option(option(k), v));
            ChannelFuture f = b.connect(peer);
            boolean done = f.awaitUninterruptibly(left + 100, TimeUnit.MILLISECONDS);
            if (done && f.isSuccess()) return h;
            f.channel().close();
            last = f.cause();
            if (!done) break;
            if (!(rootCause(last) instanceof ConnectException)) break; // refused → retry; unreachable etc. → give up
            sleepMillis(Math.min(100, Math.max(1, (deadline - System.nanoTime()) / 1_000_000)));
        }
        throw new ConnectionException("connect: no urdma/perftest server at " + peer + " within "
                + config.connectTimeout().toMillis() + " ms" + (last == null ? "" : " (" + rootCause(last).getMessage() + ")"), last);
    }

    /** Listens on {@code bind} (e.g. new InetSocketAddress(18515) for all addresses of the current namespace). */
    public Listener listen(InetSocketAddress bind) {
        Listener l = new Listener();
        ServerBootstrap b = new ServerBootstrap().group(group).channelFactory(serverChannels::get)
                .option(ChannelOption.SO_REUSEADDR, true)
                .childOption(ChannelOption.TCP_NODELAY, true)
                .childHandler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                        StreamHandler h = new StreamHandler(false, String.valueOf(ch.remoteAddress()), config.readTimeout());
                        ch.pipeline().addLast(h);
                        l.offer(h);
                    }
                });
        liveness.forEach((k, v) -> b.childOption(option(k), v));
        ChannelFuture f = b.bind(bind).awaitUninterruptibly();
        if (!f.isSuccess()) {
            throw new ConnectionException("listen: cannot bind " + bind + " (" + rootCause(f.cause()).getMessage() + ")", f.cause());
        }
        l.channel = f.channel();
        return l;
    }

    /** A listening socket; {@link #accept} hands out connected peers in arrival order, and returns at once when it is closed. */
    public final class Listener implements AutoCloseable {
        /** Wakes every waiting {@link #accept} when the listener closes (it is put back for the next waiter). */
        private static final Object CLOSED = new Object();
        private final BlockingQueue<Object> accepted = new LinkedBlockingQueue<>();
        private volatile boolean closed;
        private Channel channel;

        /** The bound address (port 0 gets a free port). */
        public InetSocketAddress localAddress() {
            return (InetSocketAddress) channel.localAddress();
        }

        private void offer(ExchangeChannel c) {
            accepted.add(c);
            if (closed) drain(); // arrived while closing: nobody will take it
        }

        /** Waits up to {@code timeout} for a client, or until the listener is closed. */
        public ExchangeChannel accept(Duration timeout) {
            try {
                Object c = closed ? CLOSED : accepted.poll(timeout.toNanos(), TimeUnit.NANOSECONDS);
                if (c == CLOSED) {
                    accepted.add(CLOSED);
                    throw new ConnectionException("accept: the listener on " + localAddress() + " was closed");
                }
                if (c == null) {
                    throw new ConnectionException("accept: no client connected to " + localAddress() + " within " + timeout.toMillis() + " ms");
                }
                return (ExchangeChannel) c;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new ConnectionException("accept: interrupted", e);
            }
        }

        private void drain() {
            for (Object c; (c = accepted.poll()) != null; ) {
                if (c instanceof ExchangeChannel e) e.close();
            }
            accepted.add(CLOSED);
        }

        @Override
        public void close() {
            closed = true;
            if (channel != null) channel.close().awaitUninterruptibly(1, TimeUnit.SECONDS);
            drain();
        }
    }

    @SuppressWarnings("unchecked")
    private static ChannelOption<Object> option(ChannelOption<?> o) {
        return (ChannelOption<Object>) o;
    }

    static Throwable rootCause(Throwable t) {
        while (t != null && t.getCause() != null && t.getCause() != t) t = t.getCause();
        return t;
    }

    private static void sleepMillis(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new ConnectionException("connect: interrupted", e);
        }
    }

    @Override
    public void close() {
        group.shutdownGracefully(0, 1, TimeUnit.SECONDS).awaitUninterruptibly(2, TimeUnit.SECONDS);
    }
}
