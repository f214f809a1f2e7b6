package org.urdma.tools.perf;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import org.HdrHistogram.Histogram;
import org.urdma.transport.api.Stats;
import org.urdma.transport.cm.ConnectionException;
import org.urdma.transport.counters.Counter;
import org.urdma.transport.counters.DeviceStats;
import org.urdma.transport.counters.QpStats;
import org.urdma.transport.wire.OpcodeTable;
import org.urdma.verbs.QpType;
import org.urdma.verbs.WrOpcode;

/**
 * Runs one perftest program on either link: over {@code --link memory} both sides in this JVM, each on its own
 * thread; over a real link this process is one side (server when no peer is given). Both sides run the same
 * per-size sequence, as perftest's two processes do: clear the receive region, meet, run the pattern, meet,
 * check the memory the peer wrote (or, for READ and atomics, what this side read).
 */
public final class PerfRunner {
    private final PerfTest test;
    private final PerfOptions o;
    private final WrOpcode op;
    private final int[] sizes;
    private final long iters;
    private final long durationNanos;

    private PerfRunner(PerfTest test, PerfOptions o) {
        this.test = test;
        this.o = o;
        this.op = test.opcode(o);
        QpType type = type(o);
        if (!test.services.contains(type)) {
            throw new IllegalArgumentException("-c: " + test.command + " runs on " + test.services + ", not " + type);
        }
        if (o.qps > 1 && !test.bandwidth()) throw new IllegalArgumentException("-q: latency tests use one QP, as perftest's do");
        if (o.duration > 0 && !test.bandwidth()) throw new IllegalArgumentException("-D: duration mode is for bandwidth tests");
        refuseUnsupportedModes(test, o);
        this.sizes = sizes(test, o, type);
        this.iters = o.iters > 0 ? o.iters : PerftestDefaults.iters(test);
        this.durationNanos = o.duration * 1_000_000_000L;
    }

    /** perftest's flags that only some tests take, checked before anything is set up (one line each, naming the flag). */
    static void refuseUnsupportedModes(PerfTest test, PerfOptions o) {
        if (o.bidirectional) {
            if (test != PerfTest.WRITE_BW && test != PerfTest.SEND_BW) {
                throw new IllegalArgumentException("-b: bidirectional runs are write-bw and send-bw here, not " + test.command);
            }
            if (o.all || o.duration > 0) throw new IllegalArgumentException("-b: runs one size by -n iterations here (not with -a or -D)");
        }
        if (o.reportBoth && !o.bidirectional) throw new IllegalArgumentException("--report-both: reports the two directions of a -b run; add -b");
        boolean readOrAtomic = test.atomic() || test.opcode(o) == org.urdma.verbs.WrOpcode.RDMA_READ;
        if (o.postList > 1) {
            if (!test.bandwidth()) throw new IllegalArgumentException("-l: post lists are for bandwidth tests");
            long n = o.iters > 0 ? o.iters : PerftestDefaults.iters(test);
            if (o.duration == 0 && n % o.postList != 0) {
                throw new IllegalArgumentException("-l: -n (" + n + ") must be a multiple of the post list (" + o.postList + ")");
            }
            if (o.postList > o.txDepth) throw new IllegalArgumentException("-l: at most -t (" + o.txDepth + "), was " + o.postList);
        }
        if (o.inlineSize > 0 && (readOrAtomic || !test.bandwidth())) {
            throw new IllegalArgumentException("-I: inline data is for the WRITE and SEND bandwidth tests");
        }
    }

    static QpType type(PerfOptions o) {
        try {
            return QpType.valueOf(o.connection.toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("-c: RC, UC or UD, was '" + o.connection + "'");
        }
    }

    /** perftest's sizes: -a is 2..2^23 (UD: up to the MTU), atomics are 8 bytes, UD messages fit one MTU. */
    static int[] sizes(PerfTest t, PerfOptions o, QpType type) {
        if (t.atomic()) return new int[] {8};
        int limit = type == QpType.UD ? o.mtu : 1 << 23;
        if (o.all) {
            return java.util.stream.IntStream.range(1, 24).map(i -> 1 << i).filter(s -> s <= limit).toArray();
        }
        int size = o.size > 0 ? o.size : Math.min(PerftestDefaults.size(t), limit);
        if (size > limit) throw new IllegalArgumentException("-s: UD messages fit one MTU (" + limit + " bytes), was " + size);
        if (t == PerfTest.WRITE_LAT && size < 1) throw new IllegalArgumentException("-s: write-lat needs >= 1 byte");
        return new int[] {size};
    }

    private int maxSize() {
        return sizes[sizes.length - 1];
    }

    /** QP depth: the send window, and the receives a SEND test keeps posted. */
    private int depth() {
        return op.isSend() ? Math.max(o.txDepth, PerfPatterns.RX_DEPTH) + 16 : Math.max(o.txDepth, 16);
    }

    /** Entry of every {@code urdma perf} subcommand: 0, or 1 with the reason on stderr. */
    public static int run(PerfTest test, PerfOptions o, NetOptions n, PrintStream out) {
        try {
            PerfMulticast.apply(test, o);
            PerftestDefaults.apply(test, o);
            PerfRunner r = new PerfRunner(test, o);
            if (o.mcg && NetOptions.isNetwork(o) && !n.perftestExchange()) {
                throw new IllegalArgumentException("-g: applies to perftest's exchange (or --link memory)");
            }
            if ((o.bidirectional || o.postList > 1 || o.inlineSize > 0 || o.outReads != 16) && !(NetOptions.isNetwork(o) && n.perftestExchange())) {
                String flag = o.bidirectional ? "-b" : o.postList > 1 ? "-l" : o.inlineSize > 0 ? "-I" : "-o";
                throw new IllegalArgumentException(flag + ": applies to perftest's exchange (--link afpacket:IF or tap:IF)");
            }
            if (o.warmupIters != 0 && (test.bandwidth() || !(NetOptions.isNetwork(o) && n.perftestExchange()))) {
                throw new IllegalArgumentException("--warmup-iters: applies to the latency tests over perftest's exchange "
                        + "(urdma's own exchange and the bandwidth tests warm up by themselves)");
            }
            return NetOptions.isNetwork(o) ? r.net(n, out) : r.memory(n, out);
        } catch (NetPerf.CompletionError | ConnectionException | IllegalArgumentException | IllegalStateException e) {
            out.flush();
            System.err.println("urdma perf " + test.command + ": " + e.getMessage());
            return 1;
        }
    }

    private int memory(NetOptions n, PrintStream out) {
        int max = maxSize();
        try (PerfSession s = new PerfSession(o, n.ackTimeout, n.retryCnt, (int) PerfSide.bufferSize(max), depth(), n.openCapture())) {
            PerfCommand.header(out, test.title(o), o, s);
            ByteArrayOutputStream serverOut = new ByteArrayOutputStream();
            if (s.inline()) {
                // one thread drives both engines and plays both sides: no thread hand-offs on a busy machine
                MemoryPerfSide[] client = MemoryPerfSide.sides(s, false, max, null), server = MemoryPerfSide.sides(s, true, max, null);
                try (PrintStream so = new PrintStream(serverOut, true, StandardCharsets.UTF_8)) {
                    sides(client, server, out, so);
                }
            } else {
                twoThreads(s, max, out, serverOut);
            }
            out.print(serverOut.toString(StandardCharsets.UTF_8));
            out.println(PerfCommand.LINE);
            QpStats client = Stats.of(s.client);
            out.printf(" %s%n", requesterLine(client));
            fecLine(client, Stats.of(s.server), out);
            out.printf(" client %s%n server %s%n", rxDrops(s.fabric.a), rxDrops(s.fabric.b));
            out.flush();
        }
        return 0;
    }

    /** Agent drivers: the server side on its own thread; the two meet at a rendezvous, a failure breaks it. */
    private void twoThreads(PerfSession s, int max, PrintStream out, ByteArrayOutputStream serverOut) {
        MemoryPerfSide.Rendezvous r = new MemoryPerfSide.Rendezvous();
        MemoryPerfSide[] client = MemoryPerfSide.sides(s, false, max, r), server = MemoryPerfSide.sides(s, true, max, r);
        CompletableFuture<Void> peer = CompletableFuture.runAsync(() -> {
            try (PrintStream so = new PrintStream(serverOut, true, StandardCharsets.UTF_8)) {
                sides(server, so);
            } catch (RuntimeException e) {
                server[0].breakRendezvous(String.valueOf(e.getMessage()));
                throw e;
            }
        }, runnable -> Thread.ofPlatform().name("perf-server").daemon().start(runnable));
        try {
            sides(client, out);
        } catch (RuntimeException e) {
            client[0].breakRendezvous(String.valueOf(e.getMessage()));
            peer.exceptionally(x -> null).join(); // the server stops at its next rendezvous; the client's error is the one reported
            throw e;
        }
        try {
            peer.get();
        } catch (ExecutionException e) {
            if (e.getCause() instanceof RuntimeException re) throw re;
            throw new IllegalStateException(e.getCause());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted waiting for the server side");
        }
    }

    private int net(NetOptions n, PrintStream out) {
        if (n.perftestExchange() && o.wanOffer().on()) {
            throw new IllegalArgumentException("--wan/--fec/--cc/--reliability sack: WAN features are agreed in urdma's exchange; "
                    + "perftest's has no field for them and a stock perftest peer would not parse URDMA headers: use --exchange urdma with an urdma peer");
        }
        if (n.perftestExchange()) return test.bandwidth() ? perftestBw(n, out) : perftestLat(n, out);
        int max = maxSize();
        try (NetPerfSession s = new NetPerfSession(o, n, (int) PerfSide.bufferSize(max), depth(), !test.bandwidth())) {
            s.establish(out, test.serverActive());
            NetPerf.header(out, test.title(o), s);
            sides(NetPerfSide.sides(s, max), out);
            out.println(PerfCommand.LINE);
            QpStats q = Stats.of(s.qp);
            if (!s.server) out.printf(" %s%n", requesterLine(q));
            out.printf(" responder: acks %d, naks %d, duplicates %d, out of sequence %d%n", q.acksSent(), q.get(Counter.NAKS_SENT),
                    q.get(Counter.DUPLICATE_REQUEST), q.get(Counter.OUT_OF_SEQ_REQUEST));
            fecLine(q, q, out);
            out.printf(" %s%n", rxDrops(s.device));
            out.printf(" link: %s%s%n", s.datapath.counters(), s.link instanceof org.urdma.transport.link.ethernet.AfPacketLink a
                    ? "; kernel " + a.kernelStatistics() : "");
            String fc = NetPerf.flowControlSummary(s.datapath);
            if (!fc.isEmpty()) out.printf(" %s%n", fc);
            s.format.barrier(s.channel, s.local, "end of the run");
            s.format.finish(s.channel);
        }
        return 0;
    }

    /** A bandwidth test over perftest 6.06's exchange and with its semantics (a stock ib_*_bw may be the peer). */
    private int perftestBw(NetOptions n, PrintStream out) {
        PerftestBw bw = new PerftestBw(test, o, op, maxSize(), iters);
        try (NetPerfSession s = new NetPerfSession(o, n, (int) bw.bufferBytes(), depth(), false)) {
            int rc = bw.run(s, out);
            qpCounters(out, s);
            return rc;
        }
    }

    /** A latency test over perftest 6.06's exchange and with its semantics (a stock ib_*_lat may be the peer). */
    private int perftestLat(NetOptions n, PrintStream out) {
        PerftestLat lat = new PerftestLat(test, o, op, maxSize(), iters);
        try (NetPerfSession s = new NetPerfSession(o, n, (int) lat.bufferBytes(), depth(), true)) {
            int rc = lat.run(s, out);
            qpCounters(out, s);
            return rc;
        }
    }

    /** This side's QP counters after a run: retransmissions and RNR NAKs both ways (evidence for interop runs). */
    private static void qpCounters(PrintStream out, NetPerfSession s) {
        long sent = 0, resent = 0, rounds = 0, timeouts = 0, rnrIn = 0, rnrOut = 0;
        for (org.urdma.verbs.QueuePair qp : s.qps) {
            QpStats q = Stats.of(qp);
            sent += q.get(Counter.SENT_PKTS);
            resent += q.get(Counter.RETRANSMITTED_PKTS);
            rounds += q.get(Counter.COMPLETER_RETRY_ERR);
            timeouts += q.get(Counter.ACK_TIMEOUTS);
            rnrIn += q.get(Counter.RCVD_RNR_ERR);
            rnrOut += q.get(Counter.RNR_NAKS_SENT);
        }
        out.printf(" qp: packets sent %d, retransmitted %d, retry rounds %d, ACK timeouts %d, RNR NAKs received %d, RNR NAKs sent %d%n",
                sent, resent, rounds, timeouts, rnrIn, rnrOut);
        out.printf(" %s%n", rxDrops(s.device));
        String fc = NetPerf.flowControlSummary(s.datapath);
        if (!fc.isEmpty()) out.printf(" %s%n", fc);
    }

    /** WAN mode with P-FEC: parity the sender sent, and what the receiver rebuilt from it (the WAN scenario reads this line). */
    private static void fecLine(QpStats tx, QpStats rx, PrintStream out) {
        if ((tx.uethFlags() & OpcodeTable.UETH_FEC) == 0) return;
        out.printf(" FEC parity sent %d, parity received %d, FEC-repaired %d%n", tx.get(Counter.FEC_PARITY_SENT),
                rx.get(Counter.FEC_PARITY_RCVD), rx.get(Counter.FEC_REPAIRED));
    }

    /** The requester's packets and retransmissions. */
    private static String requesterLine(QpStats q) {
        return String.format("packets sent %d, retransmitted %d, retry rounds %d, ACK timeouts %d", q.get(Counter.SENT_PKTS),
                q.get(Counter.RETRANSMITTED_PKTS), q.get(Counter.COMPLETER_RETRY_ERR), q.get(Counter.ACK_TIMEOUTS));
    }

    /** Frames the device dropped on receive: for a QP it does not have, with a foreign P_Key, or for another reason. */
    static String rxDrops(org.urdma.verbs.Device device) {
        DeviceStats d = Stats.of(device);
        return String.format("device rx drops: unknown QP %d, bad P_Key %d, other %d", d.get(Counter.DROP_UNKNOWN_QP),
                d.get(Counter.DROP_BAD_PKEY), d.qpDrops());
    }

    /** The per-size sequence one side runs; the client prints perftest's rows, the server what it verified. */
    private void sides(PerfSide[] all, PrintStream out) {
        sides(all, null, out, null);
    }

    /**
     * @param passivePeer the server's QPs when this thread also plays the server (memory link, inline driver): no
     *                    rendezvous; the server's preparation and check run around each phase, its answers (ping-pong,
     *                    send-bw sink) inside the phase; null otherwise
     */
    private void sides(PerfSide[] all, PerfSide[] passivePeer, PrintStream out, PrintStream peerOut) {
        PerfSide s = all[0];
        for (PerfSide each : all) if (op.isSend() && test.bandwidth()) each.postRecvs(PerfPatterns.RX_DEPTH);
        if (passivePeer != null) {
            for (PerfSide each : passivePeer) if (op.isSend() && test.bandwidth()) each.postRecvs(PerfPatterns.RX_DEPTH);
        }
        if (!s.server) {
            out.println(test.bandwidth() ? JitWarmup.describe() : String.format(Locale.ROOT, " Warm-up         : %d unmeasured"
                    + " iterations before the measured ones, on both sides", warmup(sizes[0])));
            out.println(test.bandwidth() ? bwColumns() : LAT_COLUMNS);
        }
        int phase = 0;
        for (int size : sizes) {
            Object result = null;
            long verified = -1, peerVerified = -1;
            Object lastPeerResult = null;
            for (int measured = 0; measured < 2; measured++, phase++) {
                for (PerfSide each : all) {
                    each.fillSendRegion(size); // write-lat tags the last byte; each phase starts from the pattern
                    each.clearRecvRegion();
                }
                if (passivePeer != null) {
                    for (PerfSide each : passivePeer) {
                        each.fillSendRegion(size);
                        each.clearRecvRegion();
                    }
                }
                long n = measured == 1 ? iters : warmup(size);
                // phase 0 is the first size's warm-up: a bandwidth test's runs until the JIT is done
                JitWarmup jit = measured == 0 && phase == 0 && test.bandwidth() ? JitWarmup.ofThisJvm() : null;
                long d = measured == 1 ? durationNanos : jit != null ? JitWarmup.ITERATION_NANOS : 0;
                if (op.isSend() && !test.bandwidth()) {
                    // send-lat: the phase's receives are there before the peer may send (perftest posts them before RTR)
                    for (PerfSide each : all) each.postRecvs(PerfPatterns.latRecvDepth(n));
                    if (passivePeer != null) for (PerfSide each : passivePeer) each.postRecvs(PerfPatterns.latRecvDepth(n));
                }
                s.sync("start of phase " + phase);
                Object peerResult = null;
                if (passivePeer == null) {
                    result = pattern(all, size, n, d, phase, jit);
                } else if (test.pattern == PerfTest.Pattern.PING_PONG) {
                    result = PerfPatterns.pingPong(s, passivePeer[0], op, size, (int) n);
                } else if (op.isSend()) {
                    PerfPatterns.Sink sink = new PerfPatterns.Sink(passivePeer, phase);
                    for (PerfSide each : all) ((MemoryPerfSide) each).peerSink = sink;
                    result = pattern(all, size, n, d, phase, jit);
                    for (PerfSide each : all) ((MemoryPerfSide) each).peerSink = null;
                    peerResult = sink.total;
                } else {
                    result = pattern(all, size, n, d, phase, jit);
                }
                s.settle();
                s.sync("end of phase " + phase);
                for (PerfSide each : all) verified = verify(each, size, result);
                if (passivePeer != null) for (PerfSide each : passivePeer) peerVerified = verify(each, size, peerResult);
                lastPeerResult = peerResult;
            }
            if (passivePeer != null) serverReport(peerOut, size, peerVerified, lastPeerResult);
            if (s.server) {
                serverReport(out, size, verified, result);
            } else {
                row(out, size, result);
                if (test.atomic() && result != null) {
                    out.printf(" %s results verified: the remote target moved by exactly one per operation%n", PerfTest.atomicName(o));
                }
                if (verified >= 0) out.printf(" %s verified: %d bytes match the server's pattern%n", op == WrOpcode.RDMA_READ
                        ? "READ data" : "answer", verified);
                if (test == PerfTest.WRITE_BW && !NetOptions.isNetwork(o) && !o.noCopyBaseline && result instanceof PerfPatterns.Bw r) {
                    double copy = WriteBwCommand.copyBandwidth(size);
                    out.printf(" %-10s %-16s %-18s %-20.2f ratio urdma/copy = %.3f%n", "memcpy", "(1 thread)", "",
                            bw(copy), r.avgBytesPerSec() / copy);
                }
            }
        }
    }

    private static void serverReport(PrintStream out, int size, long verified, Object result) {
        if (verified >= 0) {
            out.printf(" remote memory verified: %d bytes match the client's pattern (%d-byte messages)%n", verified, size);
        }
        if (result instanceof Long received) out.printf(" %d-byte messages received: %d%n", size, received);
    }

    private long warmup(int size) {
        long w = test.bandwidth() ? Math.max(100, Math.min(20_000, (256L << 20) / size)) : Math.max(100, iters / 2);
        return Math.min(w, Math.max(iters, 100));
    }

    /** Runs this side's part of the test's pattern: a Bw (client of a window), Long (send-bw server), Histogram, or null. */
    private Object pattern(PerfSide[] all, int size, long n, long duration, int phase, JitWarmup jit) {
        PerfSide s = all[0];
        return switch (test.pattern) {
            case WINDOW -> {
                if (!s.server) {
                    PerftestPeak peak = duration > 0 ? null
                            : PerftestPeak.forRun(n, all.length, 1, PerfPatterns.moderation(o.txDepth, size));
                    yield PerfPatterns.window(all, op, size, n, duration, o.txDepth, phase, jit, peak);
                }
                yield op.isSend() ? PerfPatterns.sink(all, phase) : null;
            }
            case PING_PONG -> PerfPatterns.pingPong(s, op, size, (int) n);
            case ROUND_TRIP -> s.server ? null : PerfPatterns.roundTrip(s, op, size, (int) n);
        };
    }

    /** Checks the receive region where this side is the one written to (or the reader); bytes checked, or -1. */
    private long verify(PerfSide s, int size, Object result) {
        long bytes;
        boolean receiver = switch (test) {
            case WRITE_BW -> s.server;
            case SEND_BW -> s.server && result instanceof Long received && received > 0;
            case WRITE_LAT, SEND_LAT -> true;
            case READ_BW, READ_LAT -> !s.server;
            default -> false;
        };
        if (!receiver) return -1;
        bytes = test == PerfTest.WRITE_LAT ? size - 1 : size; // write-lat: the last byte is the iteration's tag
        long skip = op.isSend() && s.ud() ? PerfSide.GRH : 0;
        long bad = s.verifyRecvRegion(skip, bytes);
        if (bad >= 0) {
            throw new NetPerf.CompletionError("remote memory check FAILED at offset " + bad + " of " + bytes + " bytes ("
                    + size + "-byte " + test.command + ")");
        }
        return bytes;
    }

    private String bwColumns() {
        String unit = o.gbits ? "Gb/sec" : "MB/sec";
        return String.format(" #bytes     #iterations    BW peak[%s]    BW average[%s]   MsgRate[Mpps]", unit, unit);
    }

    static final String LAT_COLUMNS = " #bytes #iterations    t_min[usec]    t_max[usec]  t_typical[usec]    t_avg[usec]"
            + "    t_stdev[usec]   99% percentile[usec]   99.9% percentile[usec]";

    private void row(PrintStream out, int size, Object result) {
        if (result instanceof PerfPatterns.Bw r) {
            out.printf(" %-10d %-16d %-18.2f %-20.2f %.6f%n", size, r.iterations(), bw(r.peakBytesPerSec()),
                    bw(r.avgBytesPerSec()), r.msgRate() / 1e6);
            if (op.isSend() && r.peerReceived() < 0) {
                out.printf(" the server's count of received messages was lost on the way back (%s); the server prints it%n",
                        type(o));
            } else if (op.isSend() && r.peerReceived() != r.total()) {
                out.printf(" the server received %d of %d messages%n", r.peerReceived(), r.total());
            }
        } else if (result instanceof Histogram h) {
            out.printf(" %-7d %-10d     %-14.2f %-12.2f %-18.2f %-14.2f %-15.2f %-22.2f %.2f%n", size, iters,
                    h.getMinValue() / 1000.0, h.getMaxValue() / 1000.0, h.getValueAtPercentile(50) / 1000.0,
                    h.getMean() / 1000.0, h.getStdDeviation() / 1000.0, h.getValueAtPercentile(99) / 1000.0,
                    h.getValueAtPercentile(99.9) / 1000.0);
        }
    }

    private double bw(double bytesPerSec) {
        return o.gbits ? bytesPerSec * 8 / 1e9 : bytesPerSec / (1 << 20);
    }
}
