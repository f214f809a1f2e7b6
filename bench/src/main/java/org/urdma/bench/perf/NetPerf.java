package org.urdma.bench.perf;

import java.io.PrintStream;
import java.time.Duration;
import org.HdrHistogram.Histogram;
import org.urdma.transport.cm.ConnectionException;
import org.urdma.verbs.ReceiveWorkRequest;
import org.urdma.verbs.SendFlags;
import org.urdma.verbs.SendWorkRequest;
import org.urdma.verbs.WcOpcode;
import org.urdma.verbs.WcStatus;
import org.urdma.verbs.WorkCompletion;
import org.urdma.verbs.WrOpcode;

/**
 * {@code urdma perf write-bw|send-lat --link afpacket:IF|tap:IF [PEER]}: the two-process form of the tests,
 * one process per side as with perftest (server when no peer is given). Same output columns as the
 * in-memory form; the server checks the bytes the client wrote (remote memory verification).
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

    static void header(PrintStream out, String title, NetPerfSession s) {
        PerfOptions o = s.o;
        out.println(PerfCommand.LINE);
        out.printf("                    %s%n", title);
        out.printf(" Dual-port       : OFF\t\tDevice         : %s%n", s.device.name());
        out.printf(" Number of qps   : 1\t\tTransport type : urdma (%s on %s)%n", o.framing, s.transportName);
        out.printf(" Connection type : %s\t\tUsing SRQ      : OFF%n", s.qp.type());
        out.printf(" TX depth        : %d%n", o.txDepth);
        out.printf(" Mtu             : %d[B]%n", s.local.mtu().bytes());
        out.printf(" Link type       : Ethernet%n");
        out.printf(" GID index       : %d%n", s.datapath.gids().indexOf(s.local.gid()));
        out.printf(" Max inline data : 0[B]%n");
        out.printf(" CM              : %s exchange over TCP (%s), port %d%n", s.format.name(), s.cm.transport(), s.n.port);
        out.printf(" Engine driver   : %s%n", s.driverName());
        out.println(PerfCommand.LINE);
        out.printf(" local address: QPN 0x%04x PSN 0x%06x RKey 0x%08x VAddr 0x%014x%n", s.local.qpn(), s.local.psn(),
                s.local.rkey(), s.local.va());
        out.printf(" GID: %s%n", s.local.gid());
        out.printf(" remote address: QPN 0x%04x PSN 0x%06x RKey 0x%08x VAddr 0x%014x%n", s.remote.qpn(), s.remote.psn(),
                s.remote.rkey(), s.remote.va());
        out.printf(" GID: %s%n", s.remote.gid());
        out.println(PerfCommand.LINE);
    }

    // ------------------------------------------------------------------ write-bw

    static int writeBw(PerfOptions o, NetOptions n, PrintStream out) {
        int[] sizes = PerfCommand.sizes(o, 65536);
        int iters = o.iters > 0 ? o.iters : 5000;
        int maxSize = sizes[sizes.length - 1];
        try (NetPerfSession s = new NetPerfSession(o, n, maxSize, o.txDepth, false)) {
            s.establish(out);
            header(out, "RDMA_Write BW Test", s);
            if (s.server) {
                s.channel.readTimeout(Duration.ofHours(24)); // the client's run; a vanished client closes the socket
                s.format.barrier(s.channel, s.local, "end of the client's run");
                s.channel.readTimeout(Duration.ofSeconds(n.cmTimeoutSeconds));
                long bad = s.verifyPattern(maxSize);
                s.format.finish(s.channel);
                if (bad >= 0) {
                    out.printf(" remote memory check FAILED at offset %d of %d bytes%n", bad, maxSize);
                    return 1;
                }
                out.printf(" remote memory verified: %d bytes match the client's pattern%n", maxSize);
                out.println(PerfCommand.LINE);
                out.printf(" link: %s%s%n", s.datapath.counters(), s.link instanceof org.urdma.transport.link.ethernet.AfPacketLink a
                        ? "; kernel " + a.kernelStatistics() : "");
                return 0;
            }
            s.fillPattern(maxSize);
            out.printf(" #bytes     #iterations    BW peak[%s]    BW average[%s]   MsgRate[Mpps]%n",
                    o.gbits ? "Gb/sec" : "MB/sec", o.gbits ? "Gb/sec" : "MB/sec");
            for (int size : sizes) {
                writeRun(s, size, Math.min(iters, 1), o.txDepth);
                writeRun(s, size, (int) Math.max(100, Math.min(20_000, (256L << 20) / size)), o.txDepth);
                WriteBwCommand.Result r = writeRun(s, size, iters, o.txDepth);
                out.printf(" %-10d %-16d %-18.2f %-20.2f %.6f%n", size, iters, bw(o, r.peakBytesPerSec()),
                        bw(o, r.avgBytesPerSec()), r.msgRate() / 1e6);
            }
            out.println(PerfCommand.LINE);
            if (s.qp instanceof org.urdma.transport.engine.SoftQp q) {
                out.printf(" packets sent %d, retransmitted %d, retry rounds %d, ACK timeouts %d%n", q.packetsSent(),
                        q.retransmittedPackets(), q.retries(), q.timeouts());
            }
            out.printf(" link: %s%s%n", s.datapath.counters(), s.link instanceof org.urdma.transport.link.ethernet.AfPacketLink a
                        ? "; kernel " + a.kernelStatistics() : "");
            s.format.barrier(s.channel, s.local, "end of the run");
            s.format.finish(s.channel);
            return 0;
        } catch (CompletionError | ConnectionException e) {
            System.err.println("urdma perf write-bw: " + e.getMessage());
            return 1;
        }
    }

    static double bw(PerfOptions o, double bytesPerSec) {
        return o.gbits ? bytesPerSec * 8 / 1e9 : bytesPerSec / (1 << 20);
    }

    static WriteBwCommand.Result writeRun(NetPerfSession s, int size, int iters, int depth) {
        SendWorkRequest wr = new SendWorkRequest();
        WorkCompletion[] wcs = new WorkCompletion[16];
        for (int i = 0; i < wcs.length; i++) wcs[i] = new WorkCompletion();
        long posted = 0, completed = 0;
        long start = System.nanoTime();
        long peakStart = start, peakDone = 0;
        double peak = 0;
        int moderation = WriteBwCommand.moderation(depth);
        long stallLimit = Duration.ofSeconds(s.n.cmTimeoutSeconds).toNanos();
        long lastProgress = start;
        while (completed < iters) {
            while (posted < iters && posted - completed < depth) {
                boolean signal = (posted + 1) % moderation == 0 || posted + 1 == iters;
                wr.reset().wrId(posted).opcode(WrOpcode.RDMA_WRITE).flags(signal ? SendFlags.SIGNALED : 0)
                        .addSge(s.buf, 0, size).remote(s.remote.va(), s.remote.rkey());
                s.qp.postSend(wr);
                posted++;
            }
            s.progress();
            int k = s.cq.poll(wcs);
            for (int i = 0; i < k; i++) {
                if (wcs[i].status != WcStatus.SUCCESS) throw failed(s, wcs[i], posted);
                long upTo = wcs[i].wrId + 1;
                long now = System.nanoTime();
                if (now > peakStart) peak = Math.max(peak, (upTo - peakDone) * (double) size * 1e9 / (now - peakStart));
                peakStart = now;
                peakDone = upTo;
                completed = upTo;
                lastProgress = now;
            }
            if (k == 0) {
                Thread.onSpinWait();
                if (System.nanoTime() - lastProgress > stallLimit) {
                    throw new CompletionError("no completion for " + s.n.cmTimeoutSeconds + " s (" + completed + " of " + iters
                            + " WRITEs done); link " + s.datapath.counters());
                }
            }
        }
        long el = System.nanoTime() - start;
        s.settle();
        double avg = (double) iters * size * 1e9 / el;
        return new WriteBwCommand.Result(avg, Math.max(peak, avg), iters * 1e9 / el);
    }

    /** Reports the failing completion, then waits for the flushed rest (the QP is in ERR) and says how many. */
    static CompletionError failed(NetPerfSession s, WorkCompletion first, long posted) {
        String what = "completion with error " + first.status + " (vendor err 0) on wr_id " + first.wrId + " ("
                + first.opcode + ")" + (first.status == WcStatus.RETRY_EXC_ERR
                ? ": the peer stopped acknowledging (dead or unreachable) after " + s.n.retryCnt + " retries of the "
                + String.format("%.1f", (4096L << s.n.ackTimeout) / 1e6) + " ms ACK timeout" : "");
        System.err.println("urdma perf: " + what);
        WorkCompletion[] wcs = {new WorkCompletion(), new WorkCompletion(), new WorkCompletion(), new WorkCompletion()};
        long flushed = 0;
        long end = System.nanoTime() + 2_000_000_000L;
        while (System.nanoTime() < end) {
            s.progress();
            int k = s.cq.poll(wcs);
            for (int i = 0; i < k; i++) if (wcs[i].status == WcStatus.WR_FLUSH_ERR) flushed++;
            if (k == 0) {
                if (flushed > 0) break;
                Thread.onSpinWait();
            }
        }
        return new CompletionError(what + "; then " + flushed + " signaled requests flushed (WR_FLUSH_ERR)");
    }

    // ------------------------------------------------------------------ send-lat

    static int sendLat(PerfOptions o, NetOptions n, PrintStream out) {
        int[] sizes = PerfCommand.sizes(o, 2);
        int iters = o.iters > 0 ? o.iters : 1000;
        int maxSize = sizes[sizes.length - 1];
        try (NetPerfSession s = new NetPerfSession(o, n, Math.max(maxSize, 64), 16, true)) {
            ReceiveWorkRequest recv = new ReceiveWorkRequest().addSge(s.buf, 0, Math.max(maxSize, 1));
            org.urdma.transport.cm.QpConnector.toInit(s.qp, s.connection(), 0x11111111);
            s.qp.postRecv(recv); // one receive is always posted: the peer's first message never meets an empty queue
            s.establish(out);
            header(out, "Send Latency Test", s);
            if (!s.server) {
                out.printf(" #bytes #iterations    t_min[usec]    t_max[usec]  t_typical[usec]    t_avg[usec]    t_stdev[usec]   99%% percentile[usec]   99.9%% percentile[usec]%n");
            }
            for (int size : sizes) {
                pingPong(s, recv, size, Math.max(100, iters / 2)); // warm-up, both sides alike
                Histogram h = pingPong(s, recv, size, iters);
                if (!s.server) {
                    out.printf(" %-7d %-10d     %-14.2f %-12.2f %-18.2f %-14.2f %-15.2f %-22.2f %.2f%n", size, iters,
                            h.getMinValue() / 1000.0, h.getMaxValue() / 1000.0, h.getValueAtPercentile(50) / 1000.0,
                            h.getMean() / 1000.0, h.getStdDeviation() / 1000.0, h.getValueAtPercentile(99) / 1000.0,
                            h.getValueAtPercentile(99.9) / 1000.0);
                }
            }
            out.println(PerfCommand.LINE);
            out.printf(" link: %s%s%n", s.datapath.counters(), s.link instanceof org.urdma.transport.link.ethernet.AfPacketLink a
                        ? "; kernel " + a.kernelStatistics() : "");
            s.format.barrier(s.channel, s.local, "end of the run");
            s.format.finish(s.channel);
            return 0;
        } catch (CompletionError | ConnectionException e) {
            System.err.println("urdma perf send-lat: " + e.getMessage());
            return 1;
        }
    }

    /** Client: send, wait for the answer, record half the round trip. Server: wait, answer. */
    static Histogram pingPong(NetPerfSession s, ReceiveWorkRequest recv, int size, int iters) {
        Histogram h = new Histogram(3_600_000_000_000L, 3);
        SendWorkRequest send = new SendWorkRequest().opcode(WrOpcode.SEND).addSge(s.buf, 0, size);
        WorkCompletion[] wc = {new WorkCompletion()};
        for (int i = 0; i < iters; i++) {
            int flags = i % 8 == 7 ? SendFlags.SIGNALED : 0;
            if (s.server) {
                awaitRecv(s, wc, i);
                s.qp.postRecv(recv);
                s.qp.postSend(send.wrId(i).flags(flags));
            } else {
                long t0 = System.nanoTime();
                s.qp.postSend(send.wrId(i).flags(flags));
                awaitRecv(s, wc, i);
                s.qp.postRecv(recv);
                h.recordValue(Math.max(1, (System.nanoTime() - t0) / 2));
            }
        }
        s.settle();
        return h;
    }

    private static void awaitRecv(NetPerfSession s, WorkCompletion[] wc, long i) {
        long deadline = System.nanoTime() + Duration.ofSeconds(s.n.cmTimeoutSeconds).toNanos();
        while (true) {
            s.progress();
            if (s.cq.poll(wc, 1) == 1) {
                if (wc[0].status != WcStatus.SUCCESS) throw failed(s, wc[0], i);
                if (wc[0].opcode == WcOpcode.RECV) return;
            } else {
                Thread.onSpinWait();
                if (System.nanoTime() - deadline > 0) {
                    throw new CompletionError("no message from the peer for " + s.n.cmTimeoutSeconds + " s at iteration " + i
                            + " (is it running with the same -s/-n/-a?)");
                }
            }
        }
    }
}
