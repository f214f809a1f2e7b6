package org.urdma.tools.perf;

import java.io.PrintStream;
import org.urdma.transport.api.Stats;
import org.urdma.transport.counters.Counter;

/**
 * {@code urdma perf TEST --link afpacket:IF|tap:IF [PEER]}: the two-process form of the tests, one process per
 * side as with perftest (server when no peer is given): the header both sides print and the error that stops a
 * run. The tests themselves are {@link PerfRunner}'s, the same as over the memory link.
 */
final class NetPerf {
    /** A work completion that is not SUCCESS: the run stops, the rest is flushed, the command exits non-zero. */
    static final class CompletionError extends RuntimeException {
        private static final long serialVersionUID = 1L;

        CompletionError(String m) {
            super(m);
        }
    }

    private NetPerf() {
    }

    /**
     * The error that stops a run at its first failed completion ({@code first} says which), once the flushed rest is
     * reaped: the QP went to ERR, so every outstanding request completes with WR_FLUSH_ERR, which the message counts.
     */
    static CompletionError failed(NetPerfSession s, String first) {
        org.urdma.verbs.WorkCompletion[] rest = new org.urdma.verbs.WorkCompletion[16];
        for (int i = 0; i < rest.length; i++) rest[i] = new org.urdma.verbs.WorkCompletion();
        long flushed = 0;
        long end = System.nanoTime() + 2_000_000_000L;
        while (System.nanoTime() < end) {
            s.progress();
            int k = 0;
            for (org.urdma.verbs.CompletionQueue cq : s.cqs) {
                int n = cq.poll(rest);
                k += n;
                for (int i = 0; i < n; i++) if (rest[i].status == org.urdma.verbs.WcStatus.WR_FLUSH_ERR) flushed++;
            }
            if (k == 0) {
                if (flushed > 0) break;
                Thread.onSpinWait();
            }
        }
        return new CompletionError(first + "; then " + flushed + " requests flushed (WR_FLUSH_ERR)");
    }

    /** Why an RC peer may be silent, for a stall message: it stopped acknowledging, or the runs do not match. */
    static String stallHint(org.urdma.verbs.QueuePair... qps) {
        long timeouts = 0;
        for (org.urdma.verbs.QueuePair qp : qps) {
            if (qp.type() == org.urdma.verbs.QpType.RC) timeouts += Stats.of(qp).get(Counter.ACK_TIMEOUTS);
        }
        if (timeouts > 0) {
            return ": the peer stopped acknowledging (" + timeouts + " ACK timeouts so far; RETRY_EXC_ERR follows once "
                    + "--retry retries of --timeout each went unanswered)";
        }
        return " (is the peer running the same test with the same -s/-n/-a/-c?)";
    }

    /**
     * The link's pause and credit counters for a run's summary, one line, or "" when all are zero: PFC/PAUSE frames and
     * time paused per priority, CBFC credits consumed and granted per VC.
     */
    static String flowControlSummary(org.urdma.transport.link.ethernet.EthernetDatapath dp) {
        org.urdma.transport.link.ethernet.LinkCounters c = dp.counters();
        StringBuilder b = new StringBuilder();
        for (int p = 0; p < 8; p++) {
            if (c.pauseFrames(p) == 0 && c.pauseTimeNs(p) == 0) continue;
            b.append(b.isEmpty() ? "pause rcvd (priority: frames/us paused):" : ",").append(' ').append(p).append(": ")
                    .append(c.pauseFrames(p)).append('/').append(c.pauseTimeNs(p) / 1000);
        }
        if (!b.isEmpty()) b.append("; sends held ").append(c.txPaused());
        StringBuilder k = new StringBuilder();
        for (int vc = 0; vc < 8; vc++) {
            if (c.cbfcConsumed(vc) + c.cbfcReceived(vc) + c.cbfcGranted(vc) + c.cbfcFramesTaken(vc) == 0) continue;
            k.append(k.isEmpty() ? "cbfc (vc: consumed/returned to us, taken/granted by us):" : ",").append(' ').append(vc).append(": ")
                    .append(c.cbfcConsumed(vc)).append('/').append(c.cbfcReceived(vc)).append(", ")
                    .append(c.cbfcFramesTaken(vc)).append('/').append(c.cbfcGranted(vc));
        }
        if (!k.isEmpty()) k.append("; sends held ").append(c.txPaused());
        return b.isEmpty() ? k.toString() : k.isEmpty() ? b.toString() : b + "; " + k;
    }

    static void header(PrintStream out, String title, NetPerfSession s) {
        PerfOptions o = s.o;
        out.println(PerfCommand.LINE);
        out.printf("                    %s%n", title);
        out.printf(" Dual-port       : OFF\t\tDevice         : %s%n", s.device.name());
        out.printf(" Number of qps   : %d\t\tTransport type : urdma (%s on %s)%n", s.qps.length, o.framing, s.transportName);
        out.printf(" Connection type : %s\t\tUsing SRQ      : OFF%n", s.qp.type());
        out.printf(" TX depth        : %d%n", o.txDepth);
        out.printf(" Mtu             : %d[B]%n", s.local.mtu().bytes());
        out.printf(" Link type       : Ethernet%n");
        if (s.datapath != null) out.printf(" Flow control    : %s%n", s.datapath.flowControlLine());
        out.printf(" GID index       : %d%n", s.datapath.gids().indexOf(s.local.gid()));
        if (!title.contains("Read") && !title.contains("Atomic")) { // perftest prints one or the other
            out.printf(" Max inline data : %d[B]%n", o.inlineSize);
        } else {
            out.printf(" Outstand reads  : %d%n", o.outReads);
        }
        if (o.postList > 1) out.printf(" Post List       : %d%n", o.postList);
        if (s.perftest != null) {
            out.printf(" CM              : perftest %s exchange over %s (peer %s), port %d%s%n",
                    org.urdma.transport.cm.perftest.PerftestVersion.CURRENT, s.cmIds != null ? "rdma_cm" : "TCP",
                    s.perftest.peerVersion(), s.n.port, s.cmIds != null ? "; QPs connected by rdma_cm (-R)" : "");
        } else {
            out.printf(" CM              : %s exchange over TCP (%s), port %d%n", s.format.name(), s.cm.transport(), s.n.port);
        }
        out.printf(" Engine driver   : %s%n", s.driverName());
        for (String line : s.telemetry.describe()) out.println(line);
        out.printf(" ICRC            : %s\t\tNetty transport: %s%n", org.urdma.transport.wire.Icrc.implementation(),
                s.cm != null ? s.cm.transport() : org.urdma.transport.cm.ConnectionManager.nettyTransport());
        out.println(PerfCommand.LINE);
        out.printf(" local address: QPN 0x%04x PSN 0x%06x RKey 0x%08x VAddr 0x%014x%n", s.local.qpn(), s.local.psn(),
                s.local.rkey(), s.local.va());
        out.printf(" GID: %s%n", s.local.gid());
        out.printf(" remote address: QPN 0x%04x PSN 0x%06x RKey 0x%08x VAddr 0x%014x%n", s.remote.qpn(), s.remote.psn(),
                s.remote.rkey(), s.remote.va());
        out.printf(" GID: %s%n", s.remote.gid());
        out.println(PerfCommand.LINE);
    }

    /** The two-process write-bw (one side of it). */
    static int writeBw(PerfOptions o, NetOptions n, PrintStream out) {
        return PerfRunner.run(PerfTest.WRITE_BW, o, n, out);
    }

    /** The two-process send-lat (one side of it). */
    static int sendLat(PerfOptions o, NetOptions n, PrintStream out) {
        return PerfRunner.run(PerfTest.SEND_LAT, o, n, out);
    }
}
