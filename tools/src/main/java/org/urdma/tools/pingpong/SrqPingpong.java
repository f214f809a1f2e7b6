package org.urdma.tools.pingpong;

import java.io.IOException;
import java.io.PrintStream;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.SplittableRandom;
import org.urdma.transport.api.Stats;
import org.urdma.transport.cm.perftest.PingpongDest;
import org.urdma.transport.cm.perftest.PingpongExchange;
import org.urdma.transport.counters.Counter;
import org.urdma.transport.engine.SoftDevice;
import org.urdma.transport.link.ethernet.EthernetDatapath;
import org.urdma.verbs.AccessFlags;
import org.urdma.verbs.CompletionChannel;
import org.urdma.verbs.CompletionQueue;
import org.urdma.verbs.Gid;
import org.urdma.verbs.MemoryRegion;
import org.urdma.verbs.PathMtu;
import org.urdma.verbs.ProtectionDomain;
import org.urdma.verbs.QpAttrMask;
import org.urdma.verbs.QpAttributes;
import org.urdma.verbs.QpInitAttributes;
import org.urdma.verbs.QpState;
import org.urdma.verbs.QpType;
import org.urdma.verbs.QueuePair;
import org.urdma.verbs.ReceiveWorkRequest;
import org.urdma.verbs.SendFlags;
import org.urdma.verbs.SendWorkRequest;
import org.urdma.verbs.SharedReceiveQueue;
import org.urdma.verbs.WcStatus;
import org.urdma.verbs.WorkCompletion;
import org.urdma.verbs.WrOpcode;

/**
 * rdma-core's ibv_srq_pingpong, step for step: {@code -q} RC QPs whose receives all come from one SRQ of
 * {@code -r} receives, one CQ of rx depth + QPs, a zeroed buffer of {@code -s} bytes; MAX_QP (256) address messages
 * each way; the client sends on every QP first; a QP sends again once its send and a receive for it completed;
 * {@code -n} counts exchanges over all QPs together, as the tool's loop does; receives are reposted once at most
 * {@code -q} are left.
 */
final class SrqPingpong {
    static final int RECV_WRID = 1;
    static final int SEND_WRID = 2;

    private final PingpongCommand o;
    private final Pingpong pp;
    private final int size;
    private final boolean server;

    SrqPingpong(PingpongCommand o, Pingpong pp, int size) {
        this.o = o;
        this.pp = pp;
        this.size = size;
        this.server = o.peer == null;
    }

    int session(PrintStream out, SoftDevice device, EthernetDatapath dp, PathMtu mtu, SplittableRandom rnd, Arena arena)
            throws IOException {
        int q = o.numQp;
        if (q > o.rxDepth) {
            throw new IllegalArgumentException("-r: rx_depth " + o.rxDepth + " is too small for " + q
                    + " QPs -- must have at least one receive per QP");
        }
        ProtectionDomain pd = device.allocPd();
        CompletionChannel channel = o.events ? device.createCompletionChannel() : null;
        CompletionQueue cq = device.createCq(o.rxDepth + q, channel);
        SharedReceiveQueue srq = pd.createSrq(o.rxDepth, 1, 0);
        MemorySegment seg = arena.allocate(size, Pingpong.PAGE);
        seg.fill((byte) 0); // pp_init_ctx: memset(ctx->buf, 0, size)
        MemoryRegion mr = pd.registerMemory(seg, AccessFlags.LOCAL_WRITE);
        QueuePair[] qps = new QueuePair[q];
        int flags = SendFlags.SIGNALED;
        for (int i = 0; i < q; i++) {
            qps[i] = pd.createQp(new QpInitAttributes().type(QpType.RC).sendCq(cq).recvCq(cq).srq(srq).maxSendWr(1).maxSendSge(1));
            if (size <= new QpInitAttributes().maxInlineData()) flags |= SendFlags.INLINE; // max_inline_data >= size
        }
        for (QueuePair qp : qps) {
            qp.modify(new QpAttributes().state(QpState.INIT).pkeyIndex(0).port(1).accessFlags(0),
                    QpAttrMask.STATE | QpAttrMask.PKEY_INDEX | QpAttrMask.PORT | QpAttrMask.ACCESS_FLAGS);
        }
        ReceiveWorkRequest recv = new ReceiveWorkRequest().wrId(RECV_WRID).addSge(mr, 0, size);
        int routs = postRecv(srq, recv, o.rxDepth);
        if (routs < o.rxDepth) throw new Pingpong.PingpongFailure("Couldn't post receive (" + routs + ")");
        if (o.events) cq.requestNotify(false);

        Gid myGid = dp.gids().gid(o.gidIndex);
        PingpongDest[] me = new PingpongDest[q];
        for (int i = 0; i < q; i++) {
            me[i] = new PingpongDest(0, qps[i].qpNum(), rnd.nextInt(1 << 24), myGid.toBytes());
            out.printf("  local address:  LID 0x%04x, QPN 0x%06x, PSN 0x%06x, GID %s%n", 0, me[i].qpn(), me[i].psn(), Pingpong.gidText(myGid));
        }
        long timeoutNanos = o.waitSeconds * 1_000_000_000L;
        PingpongDest[] rem;
        if (server) {
            try (ServerSocket ss = new ServerSocket()) {
                ss.setReuseAddress(true);
                ss.bind(new InetSocketAddress(o.port));
                ss.setSoTimeout(o.waitSeconds * 1000);
                try (Socket sock = ss.accept()) {
                    sock.setSoTimeout(o.waitSeconds * 1000);
                    PingpongExchange x = new PingpongExchange(sock.getInputStream(), sock.getOutputStream());
                    rem = x.serverReadAll(q);
                    for (int i = 0; i < q; i++) pp.connect(device, dp, qps[i], pd, me[i], rem[i], mtu, timeoutNanos);
                    x.serverReplyAll(me);
                }
            }
        } else {
            try (Socket sock = new Socket()) {
                sock.connect(new InetSocketAddress(o.peer, o.port), o.waitSeconds * 1000);
                sock.setSoTimeout(o.waitSeconds * 1000);
                rem = new PingpongExchange(sock.getInputStream(), sock.getOutputStream()).clientAll(me);
            }
            for (int i = 0; i < q; i++) pp.connect(device, dp, qps[i], pd, me[i], rem[i], mtu, timeoutNanos);
        }
        for (PingpongDest d : rem) {
            out.printf("  remote address: LID 0x%04x, QPN 0x%06x, PSN 0x%06x, GID %s%n", d.lid(), d.qpn(), d.psn(),
                    Pingpong.gidText(Gid.of(d.gid())));
        }

        SendWorkRequest send = new SendWorkRequest().wrId(SEND_WRID).opcode(WrOpcode.SEND).flags(flags).addSge(mr, 0, size);
        int[] pending = new int[q];
        for (int i = 0; i < q; i++) {
            if (!server) qps[i].postSend(send);
            pending[i] = server ? RECV_WRID : RECV_WRID | SEND_WRID;
        }
        long start = System.nanoTime();
        int rcnt = 0, scnt = 0;
        long[] perQp = new long[q];
        WorkCompletion[] wc = new WorkCompletion[o.rxDepth + q];
        for (int i = 0; i < wc.length; i++) wc[i] = new WorkCompletion();
        while (rcnt < o.iters || scnt < o.iters) {
            int ne = pp.awaitCompletions(cq, channel, wc, timeoutNanos, rcnt, scnt);
            for (int i = 0; i < ne; i++) {
                WorkCompletion w = wc[i];
                if (w.status != WcStatus.SUCCESS) {
                    throw new Pingpong.PingpongFailure(String.format("Failed status %s (%d) for wr_id %d", w.status, w.status.ordinal(), (int) w.wrId));
                }
                int k = find(qps, w.qpNum);
                if (k < 0) throw new Pingpong.PingpongFailure(String.format("Couldn't find QPN %06x", w.qpNum));
                switch ((int) w.wrId) {
                    case SEND_WRID -> ++scnt;
                    case RECV_WRID -> {
                        if (--routs <= q) {
                            routs += postRecv(srq, recv, o.rxDepth - routs);
                            if (routs < o.rxDepth) throw new Pingpong.PingpongFailure("Couldn't post receive (" + routs + ")");
                        }
                        ++rcnt;
                        perQp[k]++;
                    }
                    default -> throw new Pingpong.PingpongFailure("Completion for unknown wr_id " + w.wrId);
                }
                pending[k] &= (int) ~w.wrId;
                if (scnt < o.iters && pending[k] == 0) {
                    qps[k].postSend(send);
                    pending[k] = RECV_WRID | SEND_WRID;
                }
            }
        }
        long usec = Math.max(1, (System.nanoTime() - start) / 1000);
        long bytes = (long) size * o.iters * 2;
        out.printf("%d bytes in %.2f seconds = %.2f Mbit/sec%n", bytes, usec / 1e6, bytes * 8.0 / usec);
        out.printf("%d iters in %.2f seconds = %.2f usec/iter%n", o.iters, usec / 1e6, (double) usec / o.iters);
        // let the last ACKs leave before the link closes
        long settle = System.nanoTime() + 100_000_000L;
        while (System.nanoTime() < settle) Thread.onSpinWait();
        StringBuilder sb = new StringBuilder();
        long rnrSent = 0, rnrReceived = 0;
        for (int i = 0; i < q; i++) {
            sb.append(i == 0 ? "" : " ").append(perQp[i]);
            rnrSent += Stats.of(qps[i]).get(Counter.RNR_NAKS_SENT);
            rnrReceived += Stats.of(qps[i]).get(Counter.RCVD_RNR_ERR);
        }
        out.printf("srq: %d receives completed on %d QPs from one SRQ (per QP: %s); rnr naks sent %d, received %d%n", rcnt, q, sb,
                rnrSent, rnrReceived);
        out.printf("link: %s%n", dp.counters());
        return 0;
    }

    private static int find(QueuePair[] qps, int qpn) {
        for (int i = 0; i < qps.length; i++) if (qps[i].qpNum() == qpn) return i;
        return -1;
    }

    private static int postRecv(SharedReceiveQueue srq, ReceiveWorkRequest recv, int n) {
        int i = 0;
        try {
            for (; i < n; i++) srq.postRecv(recv);
        } catch (IllegalStateException e) {
            // queue full: how many went in, as pp_post_recv reports
        }
        return i;
    }
}
