package org.urdma.tools.rping;

import java.io.PrintStream;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;
import org.urdma.transport.api.Completions;
import org.urdma.transport.api.EndpointOptions;
import org.urdma.transport.api.RdmaCm;
import org.urdma.transport.api.RdmaCmListener;
import org.urdma.transport.api.RdmaConnectException;
import org.urdma.transport.api.RdmaConnection;
import org.urdma.transport.api.UrdmaDevice;
import org.urdma.transport.gsi.CmId;
import org.urdma.verbs.AccessFlags;
import org.urdma.verbs.CompletionQueue;
import org.urdma.verbs.MemoryRegion;
import org.urdma.verbs.ReceiveWorkRequest;
import org.urdma.verbs.SendFlags;
import org.urdma.verbs.SendWorkRequest;
import org.urdma.verbs.WcStatus;
import org.urdma.verbs.WorkCompletion;
import org.urdma.verbs.WrOpcode;

/**
 * librdmacm's rping over urdma, message for message: the client advertises its start buffer (addr, rkey, size: 16
 * bytes, big-endian, rping's struct rping_rdma_info) in a SEND, the server RDMA READs it, answers with a SEND, the
 * client advertises its sink buffer, the server RDMA WRITEs the data back and SENDs again; -V compares the two buffers.
 */
public final class Rping {
    static final int INFO = 16;
    private static final ValueLayout.OfLong BE64 = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    private static final ValueLayout.OfInt BE32 = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);

    private final UrdmaDevice device;
    private final int size;
    private final int count;
    private final boolean verbose;
    private final boolean validate;
    private final Duration timeout;
    private final PrintStream out;

    public Rping(UrdmaDevice device, int size, int count, boolean verbose, boolean validate, Duration timeout, PrintStream out) {
        if (size < 16) throw new IllegalArgumentException("size: rping needs at least 16 bytes, was " + size); // rping's RPING_MIN_BUFSIZE
        this.device = device;
        this.size = size;
        this.count = count;
        this.verbose = verbose;
        this.validate = validate;
        this.timeout = timeout;
        this.out = out;
    }

    private EndpointOptions options() {
        return EndpointOptions.defaults().withDepth(16).withTimeout(timeout);
    }

    /** Client: {@code count} pings (0: until an error); returns pings completed. */
    public int client(String serverIp, int port) {
        RdmaCm cm = device.rdmaCm();
        MemoryRegion start = device.register(size, AccessFlags.LOCAL_WRITE | AccessFlags.REMOTE_READ);
        MemoryRegion sink = device.register(size, AccessFlags.LOCAL_WRITE | AccessFlags.REMOTE_WRITE);
        MemoryRegion send = device.register(INFO, AccessFlags.LOCAL_WRITE);
        MemoryRegion recv = device.register(INFO, AccessFlags.LOCAL_WRITE);
        try (RdmaConnection c = cm.connect(serverIp, port, options())) {
            int done = 0;
            int startChar = 65;
            for (int ping = 0; count == 0 || ping < count; ping++) {
                byte[] text = ("rdma-ping-" + ping + ": ").getBytes(StandardCharsets.US_ASCII);
                MemorySegment s = start.segment();
                int i = 0;
                for (; i < Math.min(text.length, size); i++) s.set(ValueLayout.JAVA_BYTE, i, text[i]);
                for (int ch = startChar; i < size; i++) {
                    s.set(ValueLayout.JAVA_BYTE, i, (byte) ch);
                    if (++ch > 122) ch = 65;
                }
                if (++startChar > 122) startChar = 65;
                s.set(ValueLayout.JAVA_BYTE, size - 1, (byte) 0);
                sink.segment().fill((byte) 0);
                postRecv(c, recv);
                sendInfo(c, send, start);
                await(c, false, "the server's go-ahead after its RDMA READ");
                postRecv(c, recv);
                sendInfo(c, send, sink);
                await(c, false, "the server's RDMA WRITE complete");
                if (validate && !s.asSlice(0, size).asByteBuffer().equals(sink.segment().asSlice(0, size).asByteBuffer())) {
                    throw new IllegalStateException("data mismatch in ping " + ping);
                }
                if (verbose) out.println("ping data: " + cString(sink.segment()));
                done++;
            }
            return done;
        }
    }

    /** Server: accepts one client and serves its pings until it disconnects; returns pings served. */
    public int server(int port) {
        RdmaCm cm = device.rdmaCm();
        try (RdmaCmListener l = cm.listen(port, BACKLOG)) {
            Buffers b = buffers();
            return serve(l.accept(l.nextRequest(timeout), options(), qp -> postRecv(qp, b.recv())), b);
        }
    }

    /** Server; {@code persistent}: {@link #persistentServer}'s pings. */
    public int server(int port, boolean persistent) {
        return persistent ? persistentServer(port).pings() : server(port);
    }

    /**
     * What a persistent server did.
     *
     * @param clients clients whose pings all came back until they disconnected
     * @param pings   pings served
     * @param failed  connections that failed (not accepted, or a completion error)
     */
    public record Served(int clients, int pings, int failed) {
    }

    /**
     * rdma_listen's 0 (1024 REQs), not stock rping's 3: past its backlog urdma refuses a REQ at once, where the kernel
     * drops it and lets the client resend, so a burst of clients would be refused that stock rping serves.
     */
    static final int BACKLOG = 0;

    /**
     * rping -P: each client on a thread of its own, as the stock server runs one per connection, until none is connected
     * and no new one comes within the timeout; prints what it served.
     */
    public Served persistentServer(int port) {
        RdmaCm cm = device.rdmaCm();
        AtomicInteger clients = new AtomicInteger();
        AtomicInteger pings = new AtomicInteger();
        AtomicInteger failed = new AtomicInteger();
        ConcurrentLinkedQueue<Buffers> pool = new ConcurrentLinkedQueue<>();
        List<Thread> running = new ArrayList<>();
        try (RdmaCmListener l = cm.listen(port, BACKLOG)) {
            while (true) {
                CmId request;
                try {
                    request = l.nextRequest(timeout);
                } catch (RdmaConnectException e) { // nobody came within the timeout: done, unless some are still connected
                    running.removeIf(t -> !t.isAlive());
                    if (!running.isEmpty()) continue;
                    if (clients.get() + failed.get() == 0) throw e;
                    break;
                }
                running.removeIf(t -> !t.isAlive());
                running.add(Thread.ofPlatform().daemon().name("rping-server-" + request.remoteQpn()).start(() -> {
                    Buffers b = pool.poll();
                    if (b == null) b = buffers();
                    try {
                        Buffers mine = b;
                        RdmaConnection c = l.accept(request, options(), qp -> postRecv(qp, mine.recv()));
                        pings.addAndGet(serve(c, b));
                        clients.incrementAndGet();
                    } catch (RuntimeException e) { // one client failed: as rping -P, the server goes on with the rest
                        failed.incrementAndGet();
                        synchronized (out) {
                            out.println("rping server: a connection failed: " + e.getMessage());
                        }
                    } finally {
                        pool.add(b);
                    }
                }));
            }
            for (Thread t : running) join(t);
        }
        Served s = new Served(clients.get(), pings.get(), failed.get());
        out.println("rping server: " + s.clients() + " clients served, " + s.pings() + " pings, " + s.failed()
                + " connections failed; " + cm.stats());
        return s;
    }

    private static void join(Thread t) {
        try {
            t.join();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("rping server: interrupted", e);
        }
    }

    /** One connection's registered buffers: the ping data, and the 16-byte advertisement out and in. */
    private record Buffers(MemoryRegion buf, MemoryRegion send, MemoryRegion recv) {
    }

    private Buffers buffers() {
        return new Buffers(device.register(size, AccessFlags.LOCAL_WRITE), device.register(INFO, AccessFlags.LOCAL_WRITE),
                device.register(INFO, AccessFlags.LOCAL_WRITE));
    }

    /**
     * Serves one client's pings until it disconnects; its first receive was posted before the REP. Each receive is
     * posted again as soon as the one before it is read, before the SEND that lets the client send again, as stock
     * rping's completion handler does: the client's next advertisement finds a receive waiting, not an RNR NAK.
     */
    private int serve(RdmaConnection conn, Buffers b) {
        MemoryRegion buf = b.buf();
        MemoryRegion send = b.send();
        MemoryRegion recv = b.recv();
        try (RdmaConnection c = conn) {
            int served = 0;
            while (true) {
                if (!awaitOrGone(c, "the client's start buffer")) return served;
                long addr = recv.segment().get(BE64, 0);
                int rkey = recv.segment().get(BE32, 8);
                int len = recv.segment().get(BE32, 12);
                postRecv(c, recv);
                int n = Math.min(len, size);
                c.qp().postSend(new SendWorkRequest().wrId(2).opcode(WrOpcode.RDMA_READ).flags(SendFlags.SIGNALED)
                        .addSge(buf, 0, n).remote(addr, rkey));
                await(c, true, "RDMA READ of the client's buffer");
                if (verbose) out.println("server ping data: " + cString(buf.segment()));
                if (!sendInfoUnlessGone(c, send, buf)) return served;
                if (!awaitOrGone(c, "the client's sink buffer")) return served;
                addr = recv.segment().get(BE64, 0);
                rkey = recv.segment().get(BE32, 8);
                postRecv(c, recv);
                int w = Math.min(cString(buf.segment()).length() + 1, n);
                c.qp().postSend(new SendWorkRequest().wrId(3).opcode(WrOpcode.RDMA_WRITE).flags(SendFlags.SIGNALED)
                        .addSge(buf, 0, w).remote(addr, rkey));
                await(c, true, "RDMA WRITE to the client's buffer");
                served++; // the ping came back; the SEND below only tells the client to go on
                if (!sendInfoUnlessGone(c, send, buf)) return served;
            }
        }
    }

    private void postRecv(RdmaConnection c, MemoryRegion recv) {
        postRecv(c.qp(), recv);
    }

    private static void postRecv(org.urdma.verbs.QueuePair qp, MemoryRegion recv) {
        qp.postRecv(new ReceiveWorkRequest().wrId(1).addSge(recv, 0, INFO));
    }

    private void sendInfo(RdmaConnection c, MemoryRegion send, MemoryRegion advertised) {
        if (!sendInfoUnlessGone(c, send, advertised)) throw new IllegalStateException("send: " + WcStatus.WR_FLUSH_ERR);
    }

    /**
     * The server's SEND of {@code advertised}; false if it was flushed because the client disconnected first. A client
     * may receive the SEND and disconnect before its ACK reaches here (rxe completes the receive before it acknowledges),
     * so, as in rping's completion handler, a flush means the client left, not a failure.
     */
    private boolean sendInfoUnlessGone(RdmaConnection c, MemoryRegion send, MemoryRegion advertised) {
        send.segment().set(BE64, 0, advertised.address());
        send.segment().set(BE32, 8, advertised.rkey());
        send.segment().set(BE32, 12, size);
        c.qp().postSend(new SendWorkRequest().wrId(4).opcode(WrOpcode.SEND).flags(SendFlags.SIGNALED).addSge(send, 0, INFO));
        return completedUnlessFlushed(c.sendCq(), "send");
    }

    private void await(RdmaConnection c, boolean sendSide, String what) {
        WorkCompletion wc = Completions.await(sendSide ? c.sendCq() : c.recvCq(), timeout);
        if (wc.status() != WcStatus.SUCCESS) throw new IllegalStateException(what + ": " + wc.status());
    }

    /** A receive, or false when the client went away (its DREQ flushed the receive). */
    private boolean awaitOrGone(RdmaConnection c, String what) {
        return completedUnlessFlushed(c.recvCq(), what);
    }

    /** Waits for {@code cq}'s next completion: true on success, false if flushed (the client disconnected). */
    private boolean completedUnlessFlushed(CompletionQueue cq, String what) {
        WorkCompletion wc = Completions.next(cq, timeout, what); // backs off: a client that thinks long costs its thread little
        if (wc.status() == WcStatus.WR_FLUSH_ERR) return false;
        if (wc.status() != WcStatus.SUCCESS) throw new IllegalStateException(what + ": " + wc.status());
        return true;
    }

    static String cString(MemorySegment s) {
        StringBuilder b = new StringBuilder();
        for (long i = 0; i < s.byteSize(); i++) {
            byte x = s.get(ValueLayout.JAVA_BYTE, i);
            if (x == 0) break;
            b.append((char) x);
        }
        return b.toString();
    }
}
