package org.urdma.bench.rping;

import java.io.PrintStream;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import org.urdma.transport.api.Completions;
import org.urdma.transport.api.EndpointOptions;
import org.urdma.transport.api.RdmaCm;
import org.urdma.transport.api.RdmaCmListener;
import org.urdma.transport.api.RdmaConnection;
import org.urdma.transport.api.UrdmaDevice;
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
        return server(port, false);
    }

    /**
     * Server; {@code persistent} (rping -P): one client after another on the same listener until none comes within the
     * timeout, then prints how many it served; returns pings served.
     */
    public int server(int port, boolean persistent) {
        RdmaCm cm = device.rdmaCm();
        MemoryRegion buf = device.register(size, AccessFlags.LOCAL_WRITE);
        MemoryRegion send = device.register(INFO, AccessFlags.LOCAL_WRITE);
        MemoryRegion recv = device.register(INFO, AccessFlags.LOCAL_WRITE);
        try (RdmaCmListener l = cm.listen(port)) {
            if (!persistent) return serve(l, buf, send, recv);
            int pings = 0;
            int clients = 0;
            int failed = 0;
            while (true) {
                try {
                    pings += serve(l, buf, send, recv);
                    clients++;
                } catch (org.urdma.transport.api.RdmaConnectException e) {
                    if (e.getMessage().startsWith("accept: no connection request")) { // nobody came within the timeout: done
                        if (clients == 0) throw e;
                        out.println("rping server: " + clients + " clients served, " + pings + " pings, " + failed
                                + " connections failed; " + cm.stats());
                        return pings;
                    }
                    failed++; // one client's connection failed (rejected, timed out): the next may still come
                    out.println("rping server: a connection failed: " + e.getMessage());
                } catch (RuntimeException e) {
                    failed++; // one client's pings failed (a completion error): as rping -P, the server goes on
                    out.println("rping server: a client failed: " + e.getMessage());
                }
            }
        }
    }

    private int serve(RdmaCmListener l, MemoryRegion buf, MemoryRegion send, MemoryRegion recv) {
        // the first receive must be posted before the REP lets the client send: accept posts nothing, so the
        // client's first SEND may meet RNR NAKs until this post (the client retries)
        try (RdmaConnection c = l.accept(options())) {
            int served = 0;
            while (true) {
                postRecv(c, recv);
                if (!awaitOrGone(c, "the client's start buffer")) return served;
                long addr = recv.segment().get(BE64, 0);
                int rkey = recv.segment().get(BE32, 8);
                int len = recv.segment().get(BE32, 12);
                int n = Math.min(len, size);
                c.qp().postSend(new SendWorkRequest().wrId(2).opcode(WrOpcode.RDMA_READ).flags(SendFlags.SIGNALED)
                        .addSge(buf, 0, n).remote(addr, rkey));
                await(c, true, "RDMA READ of the client's buffer");
                if (verbose) out.println("server ping data: " + cString(buf.segment()));
                postRecv(c, recv);
                if (!sendInfoUnlessGone(c, send, buf)) return served;
                if (!awaitOrGone(c, "the client's sink buffer")) return served;
                addr = recv.segment().get(BE64, 0);
                rkey = recv.segment().get(BE32, 8);
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
        c.qp().postRecv(new ReceiveWorkRequest().wrId(1).addSge(recv, 0, INFO));
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
        WorkCompletion[] wc = {new WorkCompletion()};
        long deadline = System.nanoTime() + timeout.toNanos();
        while (cq.poll(wc, 1) == 0) {
            if (System.nanoTime() - deadline > 0) throw new IllegalStateException(what + ": nothing within " + timeout.toSeconds() + " s");
            java.util.concurrent.locks.LockSupport.parkNanos(20_000);
        }
        if (wc[0].status() == WcStatus.WR_FLUSH_ERR) return false;
        if (wc[0].status() != WcStatus.SUCCESS) throw new IllegalStateException(what + ": " + wc[0].status());
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
