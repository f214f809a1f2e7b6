package org.urdma.transport.cm;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Bridges Netty's event loop to blocking reads: bytes are gathered as they arrive and {@link #read} waits
 * (bounded) for enough of them. A peer that closes, errs or floods is reported to the waiting reader.
 */
final class StreamHandler extends ChannelInboundHandlerAdapter implements ExchangeChannel {
    /** More unread bytes than any exchange needs means the peer is not speaking our protocol. */
    static final int MAX_UNREAD = 1 << 20;
    private final boolean client;
    private final String peer;
    private volatile Duration readTimeout;
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition arrived = lock.newCondition();
    private final ByteBuf unread = Unpooled.buffer(256);
    private volatile Channel channel;
    private volatile boolean closed;
    private Throwable error;

    StreamHandler(boolean client, String peer, Duration readTimeout) {
        this.client = client;
        this.peer = peer;
        this.readTimeout = readTimeout;
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) {
        channel = ctx.channel();
        ctx.fireChannelActive();
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        channel = ctx.channel();
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        ByteBuf b = (ByteBuf) msg;
        lock.lock();
        try {
            if (unread.refCnt() == 0) {
                // closed by this side already: drop what still arrives
            } else if (unread.readableBytes() + b.readableBytes() > MAX_UNREAD) {
                error = new ConnectionException("exchange: " + peer + " sent more than " + MAX_UNREAD + " unread bytes (not a CM peer?)");
                ctx.close();
            } else {
                unread.writeBytes(b);
            }
            arrived.signalAll();
        } finally {
            lock.unlock();
            b.release();
        }
    }

    @Override
    public boolean ended() {
        return closed;
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        lock.lock();
        try {
            closed = true;
            arrived.signalAll();
        } finally {
            lock.unlock();
        }
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        lock.lock();
        try {
            if (error == null) error = cause;
            arrived.signalAll();
        } finally {
            lock.unlock();
        }
        ctx.close();
    }

    @Override
    public void readTimeout(Duration timeout) {
        if (timeout == null || timeout.isNegative() || timeout.isZero()) throw new IllegalArgumentException("readTimeout: must be > 0");
        this.readTimeout = timeout;
    }

    @Override
    public boolean isClient() {
        return client;
    }

    @Override
    public String peer() {
        return peer;
    }

    @Override
    public void write(byte[] bytes, String step) {
        Channel ch = channel;
        if (ch == null || !ch.isActive()) throw new ConnectionException(step + ": connection to " + peer + " is closed");
        ChannelFuture f = ch.writeAndFlush(Unpooled.wrappedBuffer(bytes));
        if (!f.awaitUninterruptibly(readTimeout.toMillis(), TimeUnit.MILLISECONDS)) {
            throw new ConnectionException(step + ": could not send to " + peer + " within " + readTimeout.toMillis() + " ms");
        }
        if (!f.isSuccess()) {
            throw new ConnectionException(step + ": sending to " + peer + " failed: " + ConnectionManager.rootCause(f.cause()).getMessage(), f.cause());
        }
    }

    @Override
    public byte[] read(int length, String step) {
        Duration readTimeout = this.readTimeout;
        long deadline = System.nanoTime() + readTimeout.toNanos();
        lock.lock();
        try {
            if (unread.refCnt() == 0) throw new ConnectionException(step + ": the channel to " + peer + " was closed by this side");
            while (unread.readableBytes() < length) {
                if (error != null) {
                    if (error instanceof ConnectionException ce) throw ce;
                    if (Keepalive.peerVanished(error)) throw new ConnectionException(step + ": " + Keepalive.vanished(peer), error);
                    throw new ConnectionException(step + ": connection to " + peer + " failed: " + ConnectionManager.rootCause(error).getMessage(), error);
                }
                if (closed) {
                    throw new ConnectionException(step + ": " + peer + " closed the connection after " + unread.readableBytes()
                            + " of " + length + " bytes");
                }
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    throw new ConnectionException(step + ": " + peer + " sent " + unread.readableBytes() + " of " + length
                            + " bytes within " + readTimeout.toMillis() + " ms");
                }
                arrived.awaitNanos(left);
            }
            byte[] out = new byte[length];
            unread.readBytes(out);
            unread.discardReadBytes();
            return out;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new ConnectionException(step + ": interrupted", e);
        } finally {
            lock.unlock();
        }
    }

    @Override
    public void close() {
        Channel ch = channel;
        if (ch != null) ch.close().awaitUninterruptibly(1, TimeUnit.SECONDS);
        lock.lock();
        try {
            closed = true;
            if (unread.refCnt() > 0) unread.release();
        } finally {
            lock.unlock();
        }
    }
}
