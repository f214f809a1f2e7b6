package org.urdma.tools.rdmacm;

import java.io.PrintStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import org.urdma.transport.api.Completions;
import org.urdma.transport.api.RdmaCm;
import org.urdma.transport.api.RdmaCmListener;
import org.urdma.transport.api.RdmaConnectException;
import org.urdma.transport.api.UrdmaDevice;
import org.urdma.transport.gsi.CmId;
import org.urdma.transport.gsi.CmState;
import org.urdma.verbs.AccessFlags;
import org.urdma.verbs.CompletionQueue;
import org.urdma.verbs.MemoryRegion;
import org.urdma.verbs.ReceiveWorkRequest;
import org.urdma.verbs.SendWorkRequest;
import org.urdma.verbs.WcStatus;
import org.urdma.verbs.WorkCompletion;
import org.urdma.verbs.WrOpcode;

/**
 * rdmacm-utils' ucmatose (librdmacm/examples/cmatose.c) over urdma's rdma_cm, in its exchange order: each side posts
 * its {@code count} receives before it connects or accepts; once every connection is up the server SENDs
 * {@code count} messages of {@code size} bytes on each, the client receives them all and SENDs as many back, the
 * server receives those and disconnects every connection, the client waits for the disconnects. A server takes
 * {@code connections} clients and refuses any more (REJ, consumer defined), as cmatose's does. Every completion must
 * succeed and every receive be {@code size} bytes.
 */
final class Ucmatose {
    private final UrdmaDevice device;
    private final int connections;
    private final int count;
    private final int size;
    private final Duration timeout;
    private final PrintStream out;

    Ucmatose(UrdmaDevice device, int connections, int count, int size, Duration timeout, PrintStream out) {
        this.device = device;
        this.connections = connections;
        this.count = size == 0 ? 0 : count; // cmatose: no message size, no messages
        this.size = size;
        this.timeout = timeout;
        this.out = out;
    }

    /** One connection: its QP and CQs, its one message buffer (cmatose sends and receives from the same one), its id. */
    private final class Node implements AutoCloseable {
        final ExampleQp ep;
        final MemoryRegion mr;
        CmId id;

        Node() {
            ep = new ExampleQp(device, Math.max(1, count));
            mr = count == 0 ? null : device.register(size, AccessFlags.LOCAL_WRITE);
            for (int i = 0; i < count; i++) ep.qp.postRecv(new ReceiveWorkRequest().wrId(i).addSge(mr, 0, size));
        }

        void postSends() {
            for (int i = 0; i < count; i++) {
                ep.qp.postSend(new SendWorkRequest().wrId(i).opcode(WrOpcode.SEND).flags(org.urdma.verbs.SendFlags.SIGNALED).addSge(mr, 0, size));
            }
        }

        void complete(CompletionQueue cq, boolean receives, String what) {
            for (int i = 0; i < count; i++) {
                WorkCompletion wc = Completions.next(cq, timeout, what);
                if (wc.status() != WcStatus.SUCCESS) throw new IllegalStateException(what + ": " + wc.status());
                if (receives && wc.byteLen() != size) {
                    throw new IllegalStateException(what + ": a " + wc.byteLen() + "-byte message, " + size + " expected (-S)");
                }
            }
        }

        @Override
        public void close() {
            ep.close();
            if (mr != null) mr.close();
        }
    }

    /** cmatose's server: {@code connections} clients, the exchange, then it disconnects them all. */
    void server(int port) {
        out.println("cmatose: starting server");
        RdmaCm cm = device.rdmaCm();
        List<Node> nodes = new ArrayList<>();
        AtomicBoolean done = new AtomicBoolean();
        try (RdmaCmListener l = cm.listen(port)) {
            List<CompletableFuture<CmId>> accepted = new ArrayList<>();
            for (int i = 0; i < connections; i++) {
                CmId request = l.nextRequest(timeout);
                Node n = new Node(); // its receives posted before the REP lets the client send
                nodes.add(n);
                n.id = request;
                accepted.add(cm.acceptQpAsync(request, n.ep.qp, device.mtu().bytes(), 1, new byte[0]));
            }
            Thread refuser = Thread.ofPlatform().daemon().name("ucmatose-refuser").start(() -> refuseMore(l, done));
            for (CompletableFuture<CmId> f : accepted) connected(f);
            if (count > 0) {
                out.println("initiating data transfers");
                for (Node n : nodes) n.postSends();
                out.println("completing sends");
                for (Node n : nodes) n.complete(n.ep.sendCq, false, "send");
                out.println("receiving data transfers");
                for (Node n : nodes) n.complete(n.ep.recvCq, true, "receive");
                out.println("data transfers complete");
            }
            out.println("cmatose: disconnecting");
            List<CmId> ids = nodes.stream().map(n -> n.id).toList();
            cm.disconnectAll(ids);
            awaitGone(ids, CmState.DREQ_SENT);
            out.println("disconnected");
            done.set(true);
            join(refuser);
        } finally {
            for (Node n : nodes) n.close();
        }
        out.println("test complete");
        out.println("return status 0");
    }

    /** cmatose's connect_handler past its last node: every further request is refused at once. */
    private void refuseMore(RdmaCmListener l, AtomicBoolean done) {
        while (!done.get()) {
            try {
                CmId extra = l.nextRequest(Duration.ofMillis(50));
                out.println("cmatose: failing connection request");
                l.reject(extra, new byte[0]);
            } catch (RdmaConnectException e) {
                // none within the poll: look at done again
            }
        }
    }

    /** cmatose's client: {@code connections} connections at once, the exchange, then the server's disconnects. */
    void client(String address, int port) {
        out.println("cmatose: starting client");
        RdmaCm cm = device.rdmaCm();
        List<Node> nodes = new ArrayList<>();
        try {
            out.println("cmatose: connecting");
            List<CompletableFuture<CmId>> pending = new ArrayList<>();
            for (int i = 0; i < connections; i++) {
                Node n = new Node();
                nodes.add(n);
                pending.add(cm.connectQpAsync(address, port, n.ep.qp, device.mtu().bytes(), 1, new byte[0]));
            }
            try {
                for (int i = 0; i < connections; i++) nodes.get(i).id = connected(pending.get(i));
            } catch (RdmaConnectException e) { // those that did connect are disconnected before their QPs go
                cm.disconnectAll(nodes.stream().map(n -> n.id).filter(java.util.Objects::nonNull).toList());
                throw e;
            }
            if (count > 0) {
                out.println("receiving data transfers");
                for (Node n : nodes) n.complete(n.ep.recvCq, true, "receive");
                out.println("sending replies");
                // not waited for, as cmatose does not: the server's DREQ, sent once it has them all, may flush them
                for (Node n : nodes) n.postSends();
                out.println("data transfers complete");
            }
            awaitGone(nodes.stream().map(n -> n.id).toList(), CmState.ESTABLISHED); // the server disconnects
        } finally {
            for (Node n : nodes) n.close();
        }
        out.println("test complete");
        out.println("return status 0");
    }

    /** The connection once established; a REJ or the CM's last retry is cmatose's error event line, then a failure. */
    private CmId connected(CompletableFuture<CmId> f) {
        try {
            return f.get(timeout.toNanos(), TimeUnit.NANOSECONDS);
        } catch (ExecutionException e) {
            String m = e.getCause().getMessage();
            out.println("cmatose: event: " + (m.contains("REJ reason") ? "RDMA_CM_EVENT_REJECTED" : "RDMA_CM_EVENT_UNREACHABLE") + ", " + m);
            throw new RdmaConnectException("ucmatose: " + m, e.getCause());
        } catch (TimeoutException e) {
            throw new RdmaConnectException("ucmatose: not connected within " + timeout.toSeconds() + " s", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new RdmaConnectException("ucmatose: interrupted", e);
        }
    }

    /** Waits until no id is in {@code state} any more (its DREP came, or the peer's DREQ). */
    private void awaitGone(List<CmId> ids, CmState state) {
        long deadline = System.nanoTime() + timeout.toNanos();
        for (CmId id : ids) {
            while (id.state() == state) {
                if (System.nanoTime() - deadline > 0) throw new IllegalStateException("disconnect: still " + state + " after " + timeout.toSeconds() + " s");
                java.util.concurrent.locks.LockSupport.parkNanos(200_000);
            }
        }
    }

    private static void join(Thread t) {
        try {
            t.join();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
