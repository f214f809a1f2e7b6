package org.urdma.tools.rdmacm;

import java.io.PrintStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.locks.LockSupport;
import org.urdma.transport.api.RdmaCm;
import org.urdma.transport.api.RdmaCmListener;
import org.urdma.transport.api.RdmaConnectException;
import org.urdma.transport.api.UrdmaDevice;
import org.urdma.transport.gsi.CmId;
import org.urdma.transport.gsi.CmState;
import org.urdma.verbs.Gid;

/**
 * rdmacm-utils' cmtime (librdmacm/examples/cmtime.c as rdma-core 44 ships it) over urdma's rdma_cm: connection setup
 * timed step by step at scale. The client takes each step for all {@code connections} before the next one, connects
 * them all at once and disconnects them all at once, then prints cmtime's table (total, slowest and fastest
 * connection, mean per connection). The server accepts every request (a QP with its own CQs, then the REP) and, when
 * a client disconnects, disconnects and destroys that connection; it stops once {@code connections} have come and
 * gone, or none comes within the timeout, and prints the same table for its side.
 */
final class Cmtime {
    /** cmtime's steps, in its order and words. */
    enum Step {
        CREATE_ID("create id"), BIND("bind addr"), RESOLVE_ADDR("resolve addr"), RESOLVE_ROUTE("resolve route"),
        CREATE_QP("create qp"), CONNECT("connect"), DISCONNECT("disconnect"), DESTROY("destroy");

        final String label;

        Step(String label) {
            this.label = label;
        }
    }

    /** Start and end of each step for the whole run and for each connection (0: not taken). */
    static final class Times {
        final long[][] total = new long[Step.values().length][2];
        final long[][][] conn;

        Times(int connections) {
            conn = new long[connections][Step.values().length][2];
        }

        void start(Step s) {
            total[s.ordinal()][0] = System.nanoTime();
        }

        void end(Step s) {
            total[s.ordinal()][1] = System.nanoTime();
        }

        void start(int c, Step s) {
            conn[c][s.ordinal()][0] = System.nanoTime();
        }

        void end(int c, Step s) {
            conn[c][s.ordinal()][1] = System.nanoTime();
        }

        /** cmtime's show_perf: step, total ms, max ms, min us, us per connection (bind only when it was taken). */
        void print(PrintStream out, int connections, boolean bound) {
            out.println("step              total ms     max ms     min us  us / conn");
            for (Step s : Step.values()) {
                if (s == Step.BIND && !bound) continue;
                double max = 0;
                double min = 999999999.;
                for (long[][] c : conn) {
                    long[] t = c[s.ordinal()];
                    if (t[0] == 0 || t[1] == 0) continue;
                    double us = (t[1] - t[0]) / 1e3;
                    max = Math.max(max, us);
                    min = Math.min(min, us);
                }
                double us = (total[s.ordinal()][1] - total[s.ordinal()][0]) / 1e3;
                out.printf("%-13s: %11.2f%11.2f%11.2f%11.2f%n", s.label, us / 1000., max / 1000., min, us / connections);
            }
        }
    }

    private final UrdmaDevice device;
    private final int connections;
    private final Duration timeout;
    private final PrintStream out;

    Cmtime(UrdmaDevice device, int connections, Duration timeout, PrintStream out) {
        this.device = device;
        this.connections = connections;
        this.timeout = timeout;
        this.out = out;
    }

    /** cmtime's client; returns the connections that failed (a REJ, or no answer after the CM's retries). */
    int client(String address, int port) {
        RdmaCm cm = device.rdmaCm();
        Times t = new Times(connections);
        ExampleQp[] qps = new ExampleQp[connections];
        CmId[] ids = new CmId[connections];
        boolean[] failed = new boolean[connections];
        int failures = 0;
        try {
            out.println("creating id");
            t.start(Step.CREATE_ID); // urdma's ids are made with the REQ: this step is only cmtime's loop
            for (int i = 0; i < connections; i++) {
                t.start(i, Step.CREATE_ID);
                t.end(i, Step.CREATE_ID);
            }
            t.end(Step.CREATE_ID);
            out.println("resolving address");
            t.start(Step.RESOLVE_ADDR); // the server's MAC: ARP for the first, the neighbour table after
            Gid server = Gid.fromIpv4(ipv4(address));
            for (int i = 0; i < connections; i++) {
                t.start(i, Step.RESOLVE_ADDR);
                if (cm.macOf(server) == null) throw new RdmaConnectException("resolve addr: no MAC for " + address + " (ARP got no answer)", null);
                t.end(i, Step.RESOLVE_ADDR);
            }
            t.end(Step.RESOLVE_ADDR);
            out.println("resolving route");
            t.start(Step.RESOLVE_ROUTE); // RoCE has no path record to ask for: the route is the address
            for (int i = 0; i < connections; i++) {
                t.start(i, Step.RESOLVE_ROUTE);
                t.end(i, Step.RESOLVE_ROUTE);
            }
            t.end(Step.RESOLVE_ROUTE);
            out.println("creating qp");
            t.start(Step.CREATE_QP);
            for (int i = 0; i < connections; i++) {
                t.start(i, Step.CREATE_QP);
                qps[i] = new ExampleQp(device, 1);
                t.end(i, Step.CREATE_QP);
            }
            t.end(Step.CREATE_QP);
            out.println("connecting");
            t.start(Step.CONNECT);
            List<CompletableFuture<CmId>> pending = new ArrayList<>();
            for (int i = 0; i < connections; i++) {
                int c = i;
                t.start(i, Step.CONNECT);
                pending.add(cm.connectQpAsync(address, port, qps[i].qp, device.mtu().bytes(), 1, new byte[0])
                        .whenComplete((id, e) -> t.end(c, Step.CONNECT)));
            }
            for (int i = 0; i < connections; i++) {
                try {
                    ids[i] = pending.get(i).get(timeout.toNanos(), java.util.concurrent.TimeUnit.NANOSECONDS);
                } catch (java.util.concurrent.ExecutionException e) {
                    String m = e.getCause().getMessage();
                    out.println("event: " + (m.contains("REJ reason") ? "RDMA_CM_EVENT_REJECTED" : "RDMA_CM_EVENT_UNREACHABLE") + ", " + m);
                    failed[i] = true;
                    failures++;
                } catch (java.util.concurrent.TimeoutException e) {
                    out.println("event: RDMA_CM_EVENT_UNREACHABLE, not connected within " + timeout.toSeconds() + " s");
                    failed[i] = true;
                    failures++;
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new RdmaConnectException("cmtime: interrupted", e);
                }
            }
            t.end(Step.CONNECT);
            out.println("disconnecting");
            t.start(Step.DISCONNECT);
            List<CmId> up = new ArrayList<>();
            for (int i = 0; i < connections; i++) {
                if (failed[i]) continue;
                t.start(i, Step.DISCONNECT);
                up.add(ids[i]);
            }
            cm.disconnectAll(up);
            awaitAll(ids, failed, t, CmState.DREQ_SENT, Step.DISCONNECT);
            t.end(Step.DISCONNECT);
        } finally {
            out.println("destroying id");
            t.start(Step.DESTROY);
            for (int i = 0; i < connections; i++) {
                t.start(i, Step.DESTROY);
                if (qps[i] != null) qps[i].close();
                t.end(i, Step.DESTROY);
            }
            t.end(Step.DESTROY);
        }
        t.print(out, connections, false);
        return failures;
    }

    /** Marks each connection's step done as it leaves {@code state}; at most the timeout for all. */
    private void awaitAll(CmId[] ids, boolean[] failed, Times t, CmState state, Step step) {
        long deadline = System.nanoTime() + timeout.toNanos();
        boolean[] done = failed.clone();
        int left = 0;
        for (boolean d : done) if (!d) left++;
        while (left > 0) {
            for (int i = 0; i < ids.length; i++) {
                if (done[i] || ids[i].state() == state) continue;
                t.end(i, step);
                done[i] = true;
                left--;
            }
            if (left > 0) {
                if (System.nanoTime() - deadline > 0) throw new IllegalStateException(step.label + ": " + left + " still " + state + " after " + timeout.toSeconds() + " s");
                LockSupport.parkNanos(50_000);
            }
        }
    }

    /** One accepted connection on the server. */
    private record Accepted(int index, CmId id, ExampleQp qp, CompletableFuture<CmId> established) {
    }

    /**
     * cmtime's server: accepts every request, disconnects and destroys each connection its client disconnects; after
     * {@code connections} have come and gone, or none comes within the timeout, prints its table (create qp: the QP
     * and CQs; connect: REP to RTU; disconnect: the client's DREQ to this side's destroy).
     *
     * @return connections that failed to establish
     */
    int server(int port) {
        RdmaCm cm = device.rdmaCm();
        Times t = new Times(connections);
        List<Accepted> open = new ArrayList<>();
        int accepted = 0;
        int closed = 0;
        int failures = 0;
        try (RdmaCmListener l = cm.listen(port)) {
            out.println("cmtime: listening on port " + port);
            while (closed + failures < connections) {
                CmId request = null;
                if (accepted < connections) {
                    try {
                        request = l.nextRequest(open.isEmpty() ? timeout : Duration.ofMillis(1));
                    } catch (RdmaConnectException e) {
                        if (open.isEmpty()) break; // nobody came within the timeout
                    }
                }
                if (request != null) {
                    int i = accepted++;
                    if (i == 0) {
                        t.start(Step.CREATE_QP);
                        t.start(Step.CONNECT);
                    }
                    t.start(i, Step.CREATE_QP);
                    ExampleQp qp = new ExampleQp(device, 1);
                    t.end(i, Step.CREATE_QP);
                    t.start(i, Step.CONNECT);
                    CompletableFuture<CmId> f = cm.acceptQpAsync(request, qp.qp, device.mtu().bytes(), 1, new byte[0])
                            .whenComplete((id, e) -> t.end(i, Step.CONNECT));
                    open.add(new Accepted(i, request, qp, f));
                    if (accepted == connections) t.end(Step.CREATE_QP);
                    continue;
                }
                for (java.util.Iterator<Accepted> it = open.iterator(); it.hasNext();) {
                    Accepted a = it.next();
                    if (a.established().isCompletedExceptionally()) {
                        out.println("event: RDMA_CM_EVENT_CONNECT_ERROR, " + a.established().exceptionNow().getMessage());
                        a.qp().close();
                        it.remove();
                        failures++;
                    } else if (a.established().isDone() && a.id().state() != CmState.ESTABLISHED) { // the client's DREQ
                        if (closed == 0) t.start(Step.DISCONNECT);
                        t.start(a.index(), Step.DISCONNECT);
                        a.qp().close();
                        t.end(a.index(), Step.DISCONNECT);
                        it.remove();
                        closed++;
                    }
                }
                if (accepted == connections && t.total[Step.CONNECT.ordinal()][1] == 0
                        && open.stream().allMatch(a -> a.established().isDone())) {
                    t.end(Step.CONNECT);
                }
                LockSupport.parkNanos(50_000);
            }
            for (Step st : new Step[] {Step.CREATE_QP, Step.CONNECT, Step.DISCONNECT}) { // fewer came than expected
                if (t.total[st.ordinal()][0] != 0 && t.total[st.ordinal()][1] == 0) t.end(st);
            }
        } finally {
            for (Accepted a : open) a.qp().close();
        }
        out.println("cmtime server: " + accepted + " connections accepted, " + closed + " disconnected, " + failures + " failed; " + cm.stats());
        if (accepted > 0) t.print(out, accepted, false);
        return failures + (accepted == 0 ? connections : 0);
    }

    private static byte[] ipv4(String address) {
        int a = org.urdma.transport.port.PortIdentity.parseIpv4(address);
        return new byte[] {(byte) (a >>> 24), (byte) (a >>> 16), (byte) (a >>> 8), (byte) a};
    }
}
