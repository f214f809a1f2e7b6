package org.urdma.express.tcp;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import org.urdma.express.protocol.ControlLimits;
import org.urdma.express.protocol.MalformedMessageException;
import org.urdma.express.protocol.Message;
import org.urdma.express.protocol.MessageCodec;
import org.urdma.express.session.ConnectionLostException;
import org.urdma.express.session.ControlChannel;
import org.urdma.express.session.SessionMemory;
import org.urdma.nativeio.TcpCongestion;
import org.urdma.verbs.MemoryRegion;

/**
 * The kernel TCP transport of a session: one or more TCP streams, each a sequence of frames, a frame being an
 * optional write (bytes for a window the peer granted, named by its address and key as an RDMA WRITE names it) and
 * the message that follows it. Control messages go on the first stream, so they keep their order; writes go on the
 * stream with the fewest bytes queued, and their message behind them on the same stream, so it is decoded only after
 * the bytes are placed. Each stream has a writer thread and a reader thread, the reader placing a write's bytes
 * straight into the staging window; the owner's thread only queues frames and takes what the readers decoded.
 */
public final class TcpChannel implements ControlChannel {
    /** Frame header: message length, write length, the write's target address and key. */
    static final int HEADER = 4 + 4 + 8 + 4;
    private static final int INBOX = 1024;
    private static final int PER_PUMP = 64;

    private final SocketChannel[] sockets;
    private final SessionMemory memory;
    private final String peer;
    private final byte[] peerPrivateData;
    private final String transport;
    private final Writer[] writers;
    private final Thread[] readers;
    private final LinkedBlockingQueue<ByteBuffer> inbox = new LinkedBlockingQueue<>(INBOX);
    private final ConcurrentLinkedQueue<Long> written = new ConcurrentLinkedQueue<>();
    private final AtomicInteger outstanding = new AtomicInteger();
    private volatile String lost;
    private volatile String malformed;
    private volatile boolean closing;
    private volatile Thread owner;
    private long lastReceiveNanos = System.nanoTime();
    private boolean closed;
    private int next;

    private record Frame(ByteBuffer message, ByteBuffer data, long address, int rkey, long token, long bytes) {
    }

    /** A stream's writer: frames in the order queued, each written whole. */
    private final class Writer implements Runnable {
        final SocketChannel socket;
        final LinkedBlockingQueue<Frame> queue = new LinkedBlockingQueue<>();
        final AtomicLong queued = new AtomicLong();
        final AtomicLong sent = new AtomicLong();
        final ByteBuffer header = ByteBuffer.allocateDirect(HEADER);
        Thread thread;

        Writer(SocketChannel socket) {
            this.socket = socket;
        }

        void add(Frame f) {
            outstanding.incrementAndGet();
            queued.addAndGet(f.bytes);
            queue.add(f);
        }

        @Override
        public void run() {
            try {
                while (!closing) {
                    Frame f = queue.take();
                    header.clear().putInt(f.message.remaining()).putInt(f.data == null ? 0 : f.data.remaining()).putLong(f.address).putInt(f.rkey).flip();
                    ByteBuffer[] parts = f.data == null ? new ByteBuffer[] {header, f.message} : new ByteBuffer[] {header, f.data, f.message};
                    long left = f.bytes + HEADER;
                    while (left > 0) left -= socket.write(parts);
                    queued.addAndGet(-f.bytes);
                    sent.addAndGet(f.bytes);
                    if (f.token >= 0) written.add(f.token);
                    outstanding.decrementAndGet();
                    wake();
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } catch (IOException | RuntimeException e) {
                if (!closing) fail("connection: " + reason(e));
            }
        }
    }

    /**
     * A channel on connected, handshaken {@code sockets} (the first carries the control messages).
     *
     * @param peerPrivateData the client's handshake data (a server's channel), or empty
     */
    TcpChannel(SocketChannel[] sockets, SessionMemory memory, String peer, byte[] peerPrivateData) {
        this.sockets = sockets.clone();
        this.memory = memory;
        this.peer = peer;
        this.peerPrivateData = peerPrivateData;
        this.transport = describe(sockets);
        this.writers = new Writer[sockets.length];
        this.readers = new Thread[sockets.length];
        for (int i = 0; i < sockets.length; i++) {
            writers[i] = new Writer(sockets[i]);
            writers[i].thread = Thread.ofPlatform().daemon().name("urdma-tcp-write-" + i).start(writers[i]);
            SocketChannel s = sockets[i];
            readers[i] = Thread.ofPlatform().daemon().name("urdma-tcp-read-" + i).start(() -> read(s));
        }
    }

    private static String describe(SocketChannel[] sockets) {
        String cc;
        try {
            cc = " cc=" + TcpCongestion.get(sockets[0]);
        } catch (RuntimeException e) {
            cc = "";
        }
        return "tcp" + cc + " streams=" + sockets.length;
    }

    private static String reason(Exception e) {
        return e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
    }

    private void fail(String why) {
        if (lost == null) lost = why;
        wake();
    }

    private void wake() {
        Thread t = owner;
        if (t != null) LockSupport.unpark(t);
    }

    /** A stream's reader: places each write's bytes in the window it names, then hands the message over. */
    private void read(SocketChannel s) {
        ByteBuffer h = ByteBuffer.allocateDirect(HEADER);
        try {
            while (true) { // to the end of the stream, also while closing: unread bytes would make the kernel reset it
                if (!readFully(s, h.clear(), true)) {
                    if (!closing) fail("connection: closed by the peer");
                    return;
                }
                h.flip();
                int messageLength = h.getInt();
                int dataLength = h.getInt();
                long address = h.getLong();
                int rkey = h.getInt();
                if (messageLength < 1 || messageLength > ControlLimits.MAX_MESSAGE || dataLength < 0) {
                    malformed = "frame of a " + messageLength + "-byte message and a " + dataLength + "-byte write";
                    wake();
                    return;
                }
                if (dataLength > 0) {
                    MemorySegment window = memory.remoteWritable(address, dataLength, rkey);
                    if (window == null) {
                        malformed = "a write of " + dataLength + " bytes at 0x" + Long.toHexString(address) + " names no window this side granted";
                        wake();
                        return;
                    }
                    if (!readFully(s, window.asByteBuffer(), false)) throw new IOException("closed by the peer inside a frame");
                }
                ByteBuffer m = ByteBuffer.allocate(messageLength);
                if (!readFully(s, m, false)) throw new IOException("closed by the peer inside a frame");
                m.flip();
                boolean queued = false;
                while (!queued && !closing) queued = inbox.offer(m, 10, TimeUnit.MILLISECONDS); // full: TCP holds the peer back meanwhile
                wake();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (IOException | RuntimeException e) {
            if (!closing) fail("connection: " + reason(e));
        }
    }

    /** {@return false at the end of the stream before the first byte, when {@code atBoundary}} */
    private static boolean readFully(SocketChannel s, ByteBuffer b, boolean atBoundary) throws IOException {
        boolean first = true;
        while (b.hasRemaining()) {
            int n = s.read(b);
            if (n < 0) {
                if (atBoundary && first) return false;
                throw new IOException("closed by the peer inside a frame");
            }
            first = false;
        }
        return true;
    }

    /** {@return bytes each stream has written} */
    long[] bytesPerStream() {
        long[] b = new long[writers.length];
        for (int i = 0; i < b.length; i++) b[i] = writers[i].sent.get();
        return b;
    }

    @Override
    public SessionMemory memory() {
        return memory;
    }

    @Override
    public void send(Message m) {
        sendRaw(MessageCodec.encode(m));
    }

    @Override
    public void sendRaw(ByteBuffer b) {
        ByteBuffer m = b.duplicate();
        writers[0].add(new Frame(m, null, 0, 0, -1, m.remaining()));
    }

    @Override
    public void sendAfterWrite(MemoryRegion source, long offset, int length, long remoteAddress, int rkey, Message m, long token) {
        Writer w = writers[next];
        for (int i = 1; i < writers.length; i++) { // the least backlogged stream; among equals, the next in turn
            Writer x = writers[(next + i) % writers.length];
            if (x.queued.get() < w.queued.get()) w = x;
        }
        next = (next + 1) % writers.length;
        ByteBuffer message = MessageCodec.encode(m);
        ByteBuffer data = source.segment().asSlice(offset, length).asByteBuffer();
        w.add(new Frame(message, data, remoteAddress, rkey, token, (long) length + message.remaining()));
    }

    /** TCP's own flow control holds back what the peer cannot take yet. */
    @Override
    public int credits() {
        return Integer.MAX_VALUE;
    }

    @Override
    public boolean inFlight() {
        return outstanding.get() > 0;
    }

    @Override
    public boolean busy() {
        return outstanding.get() > 0 || !inbox.isEmpty();
    }

    @Override
    public long nanosSinceLastReceive(long now) {
        return now - lastReceiveNanos;
    }

    /** A stream the peer closed fails {@link #pump} at once, so nothing is left to notice here. */
    @Override
    public boolean peerGone(long now) {
        return false;
    }

    @Override
    public int pump(Handler h) {
        owner = Thread.currentThread();
        int work = 0;
        for (Long t; (t = written.poll()) != null; work++) h.onWriteDone(t);
        for (int i = 0; i < PER_PUMP; i++) {
            ByteBuffer b = inbox.poll();
            if (b == null) break;
            work++;
            Message m = MessageCodec.decode(b, b.remaining());
            lastReceiveNanos = System.nanoTime();
            h.onMessage(m);
        }
        if (work == 0) {
            if (malformed != null) throw new MalformedMessageException(malformed);
            if (lost != null) throw new ConnectionLostException(lost);
        }
        return work;
    }

    @Override
    public String transport() {
        return transport;
    }

    @Override
    public byte[] peerPrivateData() {
        return peerPrivateData.clone();
    }

    @Override
    public String toString() {
        return "tcp " + peer;
    }

    /**
     * Ends every stream: first this side's half (so the peer reads all that was written, then its end), then, once
     * the peer ended its half or a quarter second passed, the sockets. Waits for the threads before freeing the memory the
     * readers place into.
     */
    @Override
    public void close() {
        if (closed) return;
        closed = true;
        closing = true;
        for (SocketChannel s : sockets) {
            try {
                s.shutdownOutput();
            } catch (IOException | RuntimeException ignored) {
                // already gone
            }
        }
        long deadline = System.nanoTime() + 250_000_000L;
        for (Thread t : readers) join(t, Math.max(1, (deadline - System.nanoTime()) / 1_000_000));
        for (SocketChannel s : sockets) {
            try {
                s.close();
            } catch (IOException ignored) {
                // nothing more to do with it
            }
        }
        for (Writer w : writers) w.thread.interrupt();
        for (Writer w : writers) join(w.thread, 5000);
        for (Thread t : readers) join(t, 5000);
        memory.close();
    }

    private static void join(Thread t, long millis) {
        try {
            t.join(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
