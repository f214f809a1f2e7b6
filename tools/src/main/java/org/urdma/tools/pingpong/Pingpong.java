package org.urdma.tools.pingpong;

import java.io.IOException;
import java.io.PrintStream;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.SplittableRandom;
import org.urdma.nativeio.AfPacketOptions;
import org.urdma.transport.api.Stats;
import org.urdma.transport.cm.ConnectionException;
import org.urdma.transport.cm.NeighborResolver;
import org.urdma.transport.cm.perftest.PingpongDest;
import org.urdma.transport.cm.perftest.PingpongExchange;
import org.urdma.transport.counters.Counter;
import org.urdma.transport.counters.QpStats;
import org.urdma.transport.driver.RealTimeDriver;
import org.urdma.transport.engine.DeviceConfig;
import org.urdma.transport.engine.SoftDevice;
import org.urdma.transport.packet.Link;
import org.urdma.transport.link.ethernet.EthernetDatapath;
import org.urdma.transport.link.ethernet.EthernetLinks;
import org.urdma.transport.link.ethernet.EthernetLinkConfig;
import org.urdma.transport.pcap.PcapWriter;
import org.urdma.transport.port.GidTable;
import org.urdma.transport.port.PortIdentity;
import org.urdma.transport.recovery.LossRecovery;
import org.urdma.transport.wire.FramingKind;
import org.urdma.verbs.AccessFlags;
import org.urdma.verbs.AddressHandle;
import org.urdma.verbs.AddressHandleAttributes;
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
import org.urdma.verbs.WcStatus;
import org.urdma.verbs.WorkCompletion;
import org.urdma.verbs.WrOpcode;

/**
 * One run of the pingpong test, step for step as rdma-core's examples do it (pp_init_ctx, pp_*_exch_dest,
 * pp_connect_ctx, the pending-bits loop). Everything the tool fixes is fixed the same way: Q_Key 0x11111111,
 * min_rnr_timer 12, timeout 14, retry 7, rnr_retry 7, one outstanding READ/atomic, hop limit 1, a buffer
 * filled with 0x7b, a UD buffer with 40 bytes of room for the GRH in front.
 */
final class Pingpong {
    enum Transport { RC, UC, UD }

    static final int SEND_WRID = 1;
    static final int RECV_WRID = 2;
    static final int QKEY = 0x11111111;
    static final int GRH = 40;
    static final int PAGE = 4096;
    static final byte FILL = 0x7b;

    private final PingpongCommand o;
    private final Transport transport;
    private final int size;
    private final boolean server;

    Pingpong(PingpongCommand o, Transport transport, int size) {
        this.o = o;
        this.transport = transport;
        this.size = size;
        this.server = o.peer == null;
    }

    int run(PrintStream out) {
        FramingKind kind = switch (o.gidIndex) {
            case GidTable.ROCE_V1_INDEX -> FramingKind.ROCE1;
            case GidTable.ROCE_V2_INDEX -> FramingKind.ROCE2;
            default -> throw new IllegalArgumentException("-g: GID index 0 (RoCEv1) or 1 (RoCEv2), was " + o.gidIndex);
        };
        String ifname = o.link.substring(o.link.indexOf(':') + 1);
        if (!(o.link.startsWith("tap:") || o.link.startsWith("afpacket:")) || ifname.isEmpty()) {
            throw new IllegalArgumentException("--link: tap:IF or afpacket:IF, was '" + o.link + "'");
        }
        EthernetLinks.Opened opened;
        try { // checks the address, sets a TAP up and waits until the kernel counts its link up
            opened = EthernetLinks.open(o.link, o.ip, o.mac, mac -> EthernetLinkConfig.of(kind, PortIdentity.of(mac, o.ip)).withEcn(o.ecn),
                    AfPacketOptions.Version.V2);
        } catch (IllegalArgumentException e) {
            System.err.println("urdma pingpong: " + e.getMessage());
            return 1;
        }
        Link link = opened.link();
        EthernetDatapath dp = opened.datapath();
        PcapWriter capture = org.urdma.cli.CaptureFiles.open(o.pcap, o.pcapng);
        if (capture != null) dp.capture(capture, System.currentTimeMillis() * 1_000_000 - System.nanoTime());
        int depth = Math.max(o.rxDepth, 16);
        DeviceConfig dc = new DeviceConfig("urdma0", dp.config().port().mac(), 64, Math.max(4096, depth * 2), 16,
                Math.max(8192, depth * 4), 1024, 16, 256, 512, 64, LossRecovery.named("gbn"));
        long seed = System.nanoTime();
        org.urdma.cli.EngineTelemetry telemetry = new org.urdma.cli.EngineTelemetry(o.counters, o.journal, dc.name());
        var counters = telemetry.countersOf(dc);
        SoftDevice device = new SoftDevice(dc, link, new SplittableRandom(seed), System.nanoTime(), counters,
                telemetry.journal(dc, counters));
        RealTimeDriver driver = new RealTimeDriver(device, RealTimeDriver.Idle.BACKOFF);
        // QP1 as on a NIC: an rdma_cm REQ to this port gets a REJ rather than silence
        org.urdma.transport.api.RdmaCm rdmaCm = org.urdma.transport.api.RdmaCm.on(device, device.allocPd(), dp);
        Arena arena = Arena.ofShared();
        for (String line : telemetry.describe()) out.println(line.trim());
        try {
            return session(out, device, dp, link, new SplittableRandom(seed ^ 0x5DEECE66DL), arena);
        } catch (ConnectionException | IOException | PingpongFailure e) {
            System.err.println("urdma pingpong: " + e.getMessage());
            return 1;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            System.err.println("urdma pingpong: interrupted");
            return 1;
        } finally {
            rdmaCm.close();
            driver.close();
            telemetry.close();
            dp.closeCapture();
            if (opened.closer() != null) {
                try {
                    opened.closer().close();
                } catch (Exception e) {
                    System.err.println("urdma pingpong: closing the link: " + e.getMessage());
                }
            }
            arena.close();
        }
    }

    /** A failed completion or a peer that went quiet: the tool's "Failed status ..." and exit 1. */
    static final class PingpongFailure extends RuntimeException {
        private static final long serialVersionUID = 1L;

        PingpongFailure(String m) {
            super(m);
        }
    }

    private int session(PrintStream out, SoftDevice device, EthernetDatapath dp, Link link, SplittableRandom rnd, Arena arena)
            throws IOException, InterruptedException {
        boolean ud = transport == Transport.UD;
        int bufSize = ud ? size + GRH : size;
        int mtuBytes = Math.min(o.mtu, link.maxPayload());
        PathMtu mtu = PathMtu.ofBytes(mtuBytes);
        if (o.srq) return new SrqPingpong(o, this, size).session(out, device, dp, mtu, rnd, arena);
        if (ud && size > mtu.bytes()) {
            throw new IllegalArgumentException("-s: " + size + " is larger than the UD MTU " + mtu.bytes());
        }
        ProtectionDomain pd = device.allocPd();
        CompletionChannel channel = o.events ? device.createCompletionChannel() : null;
        CompletionQueue cq = device.createCq(o.rxDepth + 1, channel);
        QpType type = switch (transport) {
            case RC -> QpType.RC;
            case UC -> QpType.UC;
            case UD -> QpType.UD;
        };
        QueuePair qp = pd.createQp(new QpInitAttributes().type(type).sendCq(cq).recvCq(cq).maxSendWr(1).maxRecvWr(o.rxDepth)
                .maxSendSge(1).maxRecvSge(1));
        MemorySegment seg = arena.allocate(bufSize, PAGE);
        seg.fill(FILL); // pp_init_ctx: memset(ctx->buf, 0x7b, size)
        MemoryRegion mr = pd.registerMemory(seg, ud ? AccessFlags.LOCAL_WRITE : AccessFlags.LOCAL_WRITE);

        // INIT
        QpAttributes a = new QpAttributes().state(QpState.INIT).pkeyIndex(0).port(1);
        int mask = QpAttrMask.STATE | QpAttrMask.PKEY_INDEX | QpAttrMask.PORT;
        if (ud) {
            a.qkey(QKEY);
            mask |= QpAttrMask.QKEY;
        } else {
            a.accessFlags(0);
            mask |= QpAttrMask.ACCESS_FLAGS;
        }
        qp.modify(a, mask);

        ReceiveWorkRequest recv = new ReceiveWorkRequest().wrId(RECV_WRID).addSge(mr, 0, bufSize);
        int routs = 0;
        if (o.recvDelayMs == 0) {
            routs = postRecv(qp, recv, o.rxDepth);
            if (routs < o.rxDepth) throw new PingpongFailure("Couldn't post receive (" + routs + ")");
        }
        if (o.events) cq.requestNotify(false);

        Gid myGid = dp.gids().gid(o.gidIndex);
        PingpongDest me = new PingpongDest(0, qp.qpNum(), rnd.nextInt(1 << 24), myGid.toBytes());
        out.printf("  local address:  LID 0x%04x, QPN 0x%06x, PSN 0x%06x, GID %s%n", me.lid(), me.qpn(), me.psn(), gidText(myGid));

        PingpongDest rem;
        AddressHandle ah = null;
        long timeoutNanos = o.waitSeconds * 1_000_000_000L;
        if (server) {
            try (ServerSocket ss = new ServerSocket()) {
                ss.setReuseAddress(true);
                ss.bind(new InetSocketAddress(o.port));
                ss.setSoTimeout(o.waitSeconds * 1000);
                try (Socket sock = ss.accept()) {
                    sock.setSoTimeout(o.waitSeconds * 1000);
                    PingpongExchange x = new PingpongExchange(sock.getInputStream(), sock.getOutputStream());
                    rem = x.serverRead();
                    ah = connect(device, dp, qp, pd, me, rem, mtu, timeoutNanos);
                    x.serverReply(me);
                }
            }
        } else {
            try (Socket sock = new Socket()) {
                sock.connect(new InetSocketAddress(o.peer, o.port), o.waitSeconds * 1000);
                sock.setSoTimeout(o.waitSeconds * 1000);
                rem = new PingpongExchange(sock.getInputStream(), sock.getOutputStream()).client(me);
            }
            ah = connect(device, dp, qp, pd, me, rem, mtu, timeoutNanos);
        }
        Gid remGid = Gid.of(rem.gid());
        out.printf("  remote address: LID 0x%04x, QPN 0x%06x, PSN 0x%06x, GID %s%n", rem.lid(), rem.qpn(), rem.psn(), gidText(remGid));

        SendWorkRequest send = new SendWorkRequest().wrId(SEND_WRID).opcode(WrOpcode.SEND).flags(SendFlags.SIGNALED);
        if (ud) {
            send.addSge(mr, GRH, size).ud(ah, rem.qpn(), QKEY);
        } else {
            send.addSge(mr, 0, size);
        }
        int pending = RECV_WRID;
        if (!server) {
            if (o.check) {
                for (int i = 0; i < size; i += PAGE) seg.set(java.lang.foreign.ValueLayout.JAVA_BYTE, (ud ? GRH : 0) + i, (byte) 0);
            }
            qp.postSend(send);
            pending |= SEND_WRID;
        }
        if (o.recvDelayMs > 0) {
            // an RNR window on purpose: the peer's SENDs of the next MS ms find no receive (our first SEND is out)
            Thread.sleep(o.recvDelayMs);
            routs = postRecv(qp, recv, o.rxDepth);
            if (routs < o.rxDepth) throw new PingpongFailure("Couldn't post receive (" + routs + ")");
            out.printf("receives posted %d ms after the exchange%n", o.recvDelayMs);
        }
        long start = System.nanoTime();
        int rcnt = 0;
        int scnt = 0;
        WorkCompletion[] wc = {new WorkCompletion(), new WorkCompletion()};
        while (rcnt < o.iters || scnt < o.iters) {
            int ne = awaitCompletions(cq, channel, wc, timeoutNanos, rcnt, scnt);
            for (int i = 0; i < ne; i++) {
                WorkCompletion w = wc[i];
                if (w.status != WcStatus.SUCCESS) {
                    throw new PingpongFailure(String.format("Failed status %s (%d) for wr_id %d", w.status, w.status.ordinal(), (int) w.wrId));
                }
                switch ((int) w.wrId) {
                    case SEND_WRID -> ++scnt;
                    case RECV_WRID -> {
                        if (--routs <= 1) {
                            routs += postRecv(qp, recv, o.rxDepth - routs);
                            if (routs < o.rxDepth) throw new PingpongFailure("Couldn't post receive (" + routs + ")");
                        }
                        ++rcnt;
                    }
                    default -> throw new PingpongFailure("Completion for unknown wr_id " + w.wrId);
                }
                pending &= (int) ~w.wrId;
                if (scnt < o.iters && pending == 0) {
                    qp.postSend(send);
                    pending = RECV_WRID | SEND_WRID;
                }
            }
        }
        long usec = Math.max(1, (System.nanoTime() - start) / 1000);
        long bytes = (long) size * o.iters * 2;
        out.printf("%d bytes in %.2f seconds = %.2f Mbit/sec%n", bytes, usec / 1e6, bytes * 8.0 / usec);
        out.printf("%d iters in %.2f seconds = %.2f usec/iter%n", o.iters, usec / 1e6, (double) usec / o.iters);
        if (server && o.check) {
            long bad = PingpongCheck.firstMismatch(seg, ud ? GRH : 0, size);
            if (bad >= 0) {
                System.err.printf("urdma pingpong: invalid data at byte %d (page %d): 0x%02x%n", bad, bad / PAGE,
                        seg.get(java.lang.foreign.ValueLayout.JAVA_BYTE, (ud ? GRH : 0) + bad) & 0xff);
                return 1;
            }
            out.printf("data validated: %d bytes (page starts 0x00, the rest 0x%02x)%n", size, FILL);
        }
        // let the last ACK leave before the link closes
        long settle = System.nanoTime() + 100_000_000L;
        while (System.nanoTime() < settle) Thread.onSpinWait();
        QpStats sq = Stats.of(qp);
        out.printf("qp: rnr naks sent %d, rnr naks received %d, retries %d, packets sent %d, retransmitted %d%n",
                sq.get(Counter.RNR_NAKS_SENT), sq.get(Counter.RCVD_RNR_ERR), sq.get(Counter.COMPLETER_RETRY_ERR),
                sq.get(Counter.SENT_PKTS), sq.get(Counter.RETRANSMITTED_PKTS));
        out.printf("link: %s%n", dp.counters());
        return 0;
    }

    private static int postRecv(QueuePair qp, ReceiveWorkRequest recv, int n) {
        int i = 0;
        try {
            for (; i < n; i++) qp.postRecv(recv);
        } catch (IllegalStateException e) {
            // queue full: report how many went in, as pp_post_recv does
        }
        return i;
    }

    int awaitCompletions(CompletionQueue cq, CompletionChannel channel, WorkCompletion[] wc, long timeoutNanos,
                                 int rcnt, int scnt) {
        long deadline = System.nanoTime() + timeoutNanos;
        while (true) {
            if (channel != null) {
                CompletionQueue ev;
                try {
                    ev = channel.await(Math.max(1, deadline - System.nanoTime()));
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new PingpongFailure("interrupted");
                }
                if (ev != null) cq.requestNotify(false);
            }
            int ne = cq.poll(wc, wc.length);
            if (ne > 0) return ne;
            if (System.nanoTime() - deadline > 0) {
                throw new PingpongFailure("no completion for " + o.waitSeconds + " s (received " + rcnt + ", sent " + scnt
                        + " of " + o.iters + ")");
            }
            if (channel == null) Thread.onSpinWait();
        }
    }

    /** pp_connect_ctx: RTR and RTS (RC/UC) towards the peer, or the address handle (UD). */
    AddressHandle connect(SoftDevice device, EthernetDatapath dp, QueuePair qp, ProtectionDomain pd, PingpongDest me,
                                  PingpongDest rem, PathMtu mtu, long timeoutNanos) {
        Gid dgid = Gid.of(rem.gid());
        byte[] dmac = NeighborResolver.resolve(device, dp, dgid, timeoutNanos);
        AddressHandleAttributes av = new AddressHandleAttributes().dgid(dgid).dmac(dmac).serviceLevel(o.sl)
                .sgidIndex(o.gidIndex).hopLimit(1);
        if (transport == Transport.UD) {
            qp.modify(new QpAttributes().state(QpState.RTR), QpAttrMask.STATE);
            qp.modify(new QpAttributes().state(QpState.RTS).sqPsn(me.psn()), QpAttrMask.STATE | QpAttrMask.SQ_PSN);
            return pd.createAh(av);
        }
        QpAttributes a = new QpAttributes().state(QpState.RTR).av(av).pathMtu(mtu).destQpn(rem.qpn()).rqPsn(rem.psn());
        int mask = QpAttrMask.STATE | QpAttrMask.AV | QpAttrMask.PATH_MTU | QpAttrMask.DEST_QPN | QpAttrMask.RQ_PSN;
        if (transport == Transport.RC) {
            a.maxDestRdAtomic(1).minRnrTimer(12);
            mask |= QpAttrMask.MAX_DEST_RD_ATOMIC | QpAttrMask.MIN_RNR_TIMER;
        }
        qp.modify(a, mask);
        a = new QpAttributes().state(QpState.RTS).sqPsn(me.psn());
        mask = QpAttrMask.STATE | QpAttrMask.SQ_PSN;
        if (transport == Transport.RC) {
            a.timeout(14).retryCnt(7).rnrRetry(7).maxRdAtomic(1);
            mask |= QpAttrMask.TIMEOUT | QpAttrMask.RETRY_CNT | QpAttrMask.RNR_RETRY | QpAttrMask.MAX_QP_RD_ATOMIC;
        }
        qp.modify(a, mask);
        return null;
    }

    /** inet_ntop(AF_INET6) of the GID, as the tools print it (an IPv4-mapped GID as ::ffff:a.b.c.d). */
    static String gidText(Gid g) {
        byte[] b = g.toBytes();
        if (GidTable.isIpv4Mapped(g)) {
            return String.format("::ffff:%d.%d.%d.%d", b[12] & 0xff, b[13] & 0xff, b[14] & 0xff, b[15] & 0xff);
        }
        // inet_ntop: eight hex groups, the longest run (of two or more) of zero groups as "::"
        int[] w = new int[8];
        for (int i = 0; i < 8; i++) w[i] = (b[2 * i] & 0xff) << 8 | b[2 * i + 1] & 0xff;
        int bestAt = -1, bestLen = 1;
        for (int i = 0; i < 8; ) {
            int j = i;
            while (j < 8 && w[j] == 0) j++;
            if (j - i > bestLen) {
                bestAt = i;
                bestLen = j - i;
            }
            i = j == i ? i + 1 : j;
        }
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < 8; i++) {
            if (i == bestAt) {
                sb.append("::");
                i += bestLen - 1;
                continue;
            }
            if (sb.length() > 0 && sb.charAt(sb.length() - 1) != ':') sb.append(':');
            sb.append(Integer.toHexString(w[i]));
        }
        return sb.toString();
    }
}
