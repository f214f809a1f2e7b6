package org.urdma.tools.perf;

import java.io.PrintStream;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.time.Duration;
import org.urdma.transport.api.Stats;
import org.urdma.transport.cm.perftest.ExchangeFormatException;
import org.urdma.transport.cm.NeighborResolver;
import org.urdma.transport.cm.perftest.PerftestBwReport;
import org.urdma.transport.counters.Counter;
import org.urdma.verbs.AddressHandle;
import org.urdma.verbs.AddressHandleAttributes;
import org.urdma.verbs.QpType;
import org.urdma.verbs.ReceiveWorkRequest;
import org.urdma.verbs.SendFlags;
import org.urdma.verbs.SendWorkRequest;
import org.urdma.verbs.WcOpcode;
import org.urdma.verbs.WcStatus;
import org.urdma.verbs.WorkCompletion;
import org.urdma.verbs.WrOpcode;

/**
 * The bandwidth tests (ib_write_bw, ib_read_bw, ib_send_bw, ib_atomic_bw) as perftest 6.06 runs them, one side
 * per process, over perftest's out-of-band exchange, so either side may be the stock tool:
 * <ul>
 *   <li>sequence (C/S writes): version, page and cache-line size, MTU; a key message per QP; a barrier after RTR;
 *       a key message per QP again; send_bw: a barrier once the server's receives are posted; the client runs;
 *       write/read/atomic: a barrier and the five report fields; then ctx_close_connection (a barrier and "done").</li>
 *   <li>requests: {@code -n} of them per QP, at most {@code -t} outstanding, every min(100, -t)-th and the last
 *       signaled; a message of at most half the cycle buffer (the page) moves on by INC(size, cache line) per
 *       request, locally and remotely, and wraps at the cycle buffer (increase_loc_addr/increase_rem_addr);
 *       FETCH_AND_ADD adds 1, CMP_AND_SWAP compares with 0 and swaps 0 (ATOMIC_ADD_VALUE, ATOMIC_SWAP_VALUE);
 *       UD sends carry Q_Key 0x11111111 and at most one MTU, the receive buffer has 40 bytes for the GRH
 *       first.</li>
 *   <li>the advertised address is the second half of each QP's buffer (my_dest.vaddr = buf + BUFF_SIZE), the
 *       first half is the source.</li>
 * </ul>
 * perftest fills its buffer with rand(), so against a stock peer urdma checks invariants rather than bytes:
 * every READ of one remote address returns the same bytes and not all zero, FETCH_AND_ADD results at one address
 * step by one, CMP_AND_SWAP results at one address never change, every SEND equals the earlier ones from the same
 * source address, a WRITE or atomic changes exactly the places perftest targets. Against a urdma peer the bytes
 * are also compared with urdma's pattern. Not done (the stock server cannot tell): perftest's warm-up of -t
 * requests before a write/read/atomic run.
 */
final class PerftestBw {
    static final int GRH = PerfSide.GRH;
    static final int QKEY = PerfSide.QKEY;
    static final int RX_DEPTH = PerfPatterns.RX_DEPTH;
    static final int GUARD = 64;
    /** What a WRITE target holds before the run, so a write shows (a byte of a random fill matches it 1 time in 256). */
    static final byte CANARY = (byte) 0xA5;

    /**
     * Where things are in each QP's buffer: the source and the advertised target ({@code unit} bytes each, room for the
     * largest message), then {@code slots} receive/READ/atomic slots of {@code slotSize} bytes for {@code size}-byte
     * messages, in a region of {@code slotRegion} bytes.
     */
    record Layout(int size, long unit, long slotSize, int slots, long slotRegion) {
        static Layout of(WrOpcode op, int size, int txDepth, long iters) {
            long unit = inc(Math.max(size, PerftestLink.PAGE), PerftestLink.CACHE_LINE);
            int slots = switch (op) {
                case RDMA_READ, ATOMIC_CMP_AND_SWP, ATOMIC_FETCH_AND_ADD -> txDepth;
                case SEND -> (int) Math.min(RX_DEPTH, iters);
                default -> 0;
            };
            long slotSize = slotSize(size);
            return new Layout(size, unit, slotSize, slots, slots * slotSize);
        }

        /**
         * -a: room for the largest message and for every slot of messages up to half the page; a larger message takes
         * fewer slots (at least one), which it may share, as perftest's receives do: such messages all come from one
         * source address, so what lands in a shared slot is the same bytes.
         */
        static Layout sweep(WrOpcode op, int maxSize, int txDepth, long iters) {
            Layout max = of(op, maxSize, txDepth, iters);
            long region = max.slots == 0 ? 0 : Math.min(max.slotRegion,
                    Math.max(max.slots * slotSize(Math.min(maxSize, PerftestLink.PAGE / 2)), max.slotSize));
            return new Layout(maxSize, max.unit, max.slotSize, max.slots == 0 ? 0 : (int) Math.max(1, region / max.slotSize), region);
        }

        /** The same buffer for {@code n}-byte messages (-a): as many slots as the region holds, at most the first count. */
        Layout forSize(int n, int slotCount) {
            long ss = slotSize(n);
            int k = slotCount == 0 ? 0 : (int) Math.max(1, Math.min(slotCount, slotRegion / ss));
            return new Layout(n, unit, ss, k, slotRegion);
        }

        static long slotSize(int size) {
            return inc(size + GRH, PerftestLink.CACHE_LINE);
        }

        long source() {
            return 0;
        }

        long target() {
            return unit;
        }

        long slot(long i) {
            return 2 * unit + (i % Math.max(1, slots)) * slotSize;
        }

        long bytes() {
            return 2 * unit + slotRegion + GUARD;
        }
    }

    static long inc(long size, long line) {
        return (size + line - 1) / line * line;
    }

    private final PerfTest test;
    private final PerfOptions o;
    private final WrOpcode op;
    private final long iters;
    private final int txDepth;
    /** The message size of the run (-s), or of the current step of the -a sweep. */
    private int size;
    /** The buffer as laid out for the largest message, and as used for the current size. */
    private final Layout buffer;
    private Layout layout;
    /** Slots the operation wants (receives, READs or atomics in flight) before the buffer bounds them. */
    private final int slotCount;
    /** -D in nanoseconds, 0 with -n iterations. */
    private final long durationNanos;
    /** -D: the warm-up and cool-down of perftest's duration run (margin = duration / 4 whole seconds), not sampled. */
    private final long marginNanos;

    PerftestBw(PerfTest test, PerfOptions o, WrOpcode op, int size, long iters) {
        this.test = test;
        this.o = o;
        this.op = op;
        this.size = size;
        this.iters = iters;
        this.txDepth = (int) Math.min(o.txDepth, iters); // force_dependecies: tx depth at most -n (rx depth: Layout)
        this.slotCount = Layout.of(op, size, txDepth, iters).slots();
        this.buffer = o.all ? Layout.sweep(op, size, txDepth, iters) : Layout.of(op, size, txDepth, iters);
        this.layout = buffer;
        this.durationNanos = o.duration * 1_000_000_000L;
        this.marginNanos = PerfOptions.marginNanos(durationNanos);
    }

    long bufferBytes() {
        return buffer.bytes();
    }

    private boolean timed() {
        return durationNanos > 0;
    }

    /** -a: perftest's sizes 2, 4, ... up to the largest (2^23, UD one MTU); else the one size. */
    private int[] sizes(int max) {
        if (!o.all) return new int[] {size};
        return java.util.stream.IntStream.range(1, 24).map(i -> 1 << i).filter(n -> n <= max).toArray();
    }

    private void use(int n) {
        size = n;
        layout = buffer.forSize(n, slotCount);
    }

    int run(NetPerfSession s, PrintStream out) {
        if (timed() && op.isAtomic()) {
            throw new IllegalArgumentException("-D: atomic-bw runs -n iterations here (its memory check counts every operation)");
        }
        if (timed() && o.all) throw new IllegalArgumentException("-D: runs one size; -a sweeps sizes by -n iterations each");
        for (int i = 0; i < s.qps.length; i++) prepareBuffer(s, i);
        long[] vaddr = new long[s.qps.length];
        for (int i = 0; i < vaddr.length; i++) vaddr[i] = s.bufs[i].address() + buffer.target();
        s.establishPerftest(out, vaddr);
        boolean ud = s.qp.type() == QpType.UD;
        if (ud && size > s.pathMtu.bytes()) {
            if (!o.all) out.printf(" Max msg size in UD is MTU %d%n Changing to this MTU%n", s.pathMtu.bytes());
            size = s.pathMtu.bytes();
        }
        int[] sizes = sizes(size);
        AddressHandle[] ah = new AddressHandle[s.qps.length];
        if (ud) {
            for (int i = 0; i < ah.length; i++) {
                byte[] mac = s.remotes[i].gid().isMulticast() ? s.remotes[i].mac() // -g: the group's multicast MAC
                        : NeighborResolver.resolve(s.device, s.datapath, s.remotes[i].gid(), 2_000_000_000L);
                ah[i] = s.pd.createAh(new AddressHandleAttributes().dgid(s.remotes[i].gid()).dmac(mac));
            }
        }
        NetPerf.header(out, test.title(o), s);
        PerftestLink link = s.perftest;
        link.readTimeout(s.barrierTimeout()); // the peer's whole run may pass between two barriers
        int cycle = link.sysData().cycleBuffer(), line = link.sysData().cacheLineSize();
        if (o.bidirectional) return duplex(s, out, link, addressing(cycle, line), ah, ud);
        if (op == WrOpcode.SEND) {
            out.println(columns());
            for (int n : sizes) {
                use(n);
                Addressing a = addressing(cycle, line);
                if (s.server) {
                    SendSink sink = new SendSink(s, a, ud);
                    sink.postAll();
                    link.barrier("receives posted");
                    s.goInline(true);
                    sink.run(out);
                    s.resumeAgent();
                    if (timed()) {
                        // the sender's clock is its own: until it has met us, whatever it still sends finds a receive
                        out.println(PerfCommand.LINE);
                        sink.repostDuring(link::closeConnection);
                        return 0;
                    }
                } else {
                    link.barrier("receives posted");
                    s.goInline(true);
                    Result r = new Window(s, a, ah).run();
                    s.resumeAgent();
                    row(out, r.peak, r.avg, r.rate, size, r.iterations);
                }
                if (o.all) link.barrier("end of " + n + "-byte messages"); // send_bw -a meets again after each size
            }
            if (!s.server) {
                refuseDuplexSends(s);
                for (int i = 0; i < s.qps.length; i++) verifyUntouched(s, i, out);
            }
            out.println(PerfCommand.LINE);
            link.closeConnection();
            return 0;
        }
        if (s.server) {
            out.println(columns());
            link.barrier("end of the client's run");
            byte[] theirs = link.report(new PerftestBwReport(size, 0, 0, 0, 0));
            long reported = -1;
            try {
                PerftestBwReport r = PerftestBwReport.decode(theirs);
                reported = r.iterations();
                row(out, r.bwPeak() * (1 << 20), r.bwAverage() * (1 << 20), r.msgRate() * 1e6, r.size(), r.iterations());
            } catch (ExchangeFormatException e) {
                out.println(" the client's report did not decode: " + e.getMessage());
            }
            out.println(PerfCommand.LINE);
            // after the client's last WRITE: the barrier above comes after its run, so nothing of it is still on the way
            Addressing a = addressing(cycle, line);
            long writes = timed() ? Math.max(0, reported) : iters;
            for (int i = 0; i < s.qps.length; i++) verifyTarget(s, i, a, writes, out);
        } else {
            out.println(columns());
            Result r = null;
            for (int n : sizes) {
                use(n);
                s.goInline(false);
                r = new Window(s, addressing(cycle, line), ah).run();
                s.resumeAgent();
                row(out, r.peak, r.avg, r.rate, size, r.iterations);
            }
            out.println(PerfCommand.LINE);
            r.checks.forEach(out::println);
            link.barrier("end of the run");
            link.report(new PerftestBwReport(size, r.iterations, r.peak / (1 << 20), r.avg / (1 << 20), r.rate / 1e6));
            // after the server's report: a -b server's own run (it starts at the barrier above) has ended by then
            for (int i = 0; i < s.qps.length; i++) verifyUntouched(s, i, out);
        }
        link.closeConnection();
        return 0;
    }

    /**
     * -b, perftest's duplex run of one size by -n iterations (write_bw, send_bw): both sides post their receives
     * (send_bw), meet, run the client's window at once, exchange reports and print their sum as print_full_bw_report
     * does (with --report-both each side's row too); then check what the peer's run left here, over by its report.
     * A peer without -b shows: write_bw, as a server whose client ran before the barrier (all its requests are in) or a
     * client no WRITE came to; send_bw, as RNR NAKs to this side's SENDs or no SEND at all.
     */
    private int duplex(NetPerfSession s, PrintStream out, PerftestLink link, Addressing a, AddressHandle[] ah, boolean ud) {
        SendSink sink = op == WrOpcode.SEND ? new SendSink(s, a, ud) : null;
        if (sink != null) sink.postAll();
        out.println(columns());
        link.barrier("before the bidirectional run");
        long packets = iters * s.qps.length * Math.max(1, (size + s.pathMtu.bytes() - 1) / s.pathMtu.bytes());
        if (op == WrOpcode.RDMA_WRITE && iters > txDepth && packetsReceived(s) >= packets) {
            throw new NetPerf.CompletionError("-b: the peer's whole run arrived before the barrier (" + packetsReceived(s)
                    + " packets): it runs without -b; run both sides with -b or neither");
        }
        s.goInline(true);
        Window w = new Window(s, a, ah);
        w.sink = sink;
        long t0 = System.nanoTime();
        Result r = w.run();
        if (sink != null) sink.awaitAll(Math.max(1_000_000_000L, System.nanoTime() - t0));
        s.resumeAgent();
        PerftestBwReport mine = new PerftestBwReport(size, r.iterations, r.peak / (1 << 20), r.avg / (1 << 20), r.rate / 1e6);
        PerftestBwReport rem;
        try {
            rem = PerftestBwReport.decode(link.report(mine));
        } catch (ExchangeFormatException e) {
            throw new NetPerf.CompletionError("-b: the peer's report did not decode: " + e.getMessage());
        }
        double mb = 1 << 20;
        row(out, r.peak + rem.bwPeak() * mb, r.avg + rem.bwAverage() * mb, r.rate + rem.msgRate() * 1e6, size, r.iterations);
        if (o.reportBoth) {
            out.printf("%s%n%n Local results: %n%s%n%s%n", PerfCommand.LINE, PerfCommand.LINE, columns());
            row(out, r.peak, r.avg, r.rate, size, r.iterations);
            out.printf("%s%n%n Remote results: %n%s%n%s%n", PerfCommand.LINE, PerfCommand.LINE, columns());
            row(out, rem.bwPeak() * mb, rem.bwAverage() * mb, rem.msgRate() * 1e6, rem.size(), rem.iterations());
        }
        out.println(PerfCommand.LINE);
        r.checks.forEach(out::println);
        if (sink != null) {
            sink.report(out, false);
        } else {
            for (int i = 0; i < s.qps.length; i++) {
                if (m(s, i).get(ValueLayout.JAVA_BYTE, layout.target()) == CANARY && m(s, i).get(ValueLayout.JAVA_BYTE, layout.target() + size - 1) == CANARY) {
                    throw new NetPerf.CompletionError("-b: no WRITE of the peer reached this side's advertised region (QP " + i
                            + "): it runs without -b; run both sides with -b or neither");
                }
                verifyTarget(s, i, a, iters, out);
            }
        }
        link.closeConnection();
        return 0;
    }

    private static MemorySegment m(NetPerfSession s, int q) {
        return s.bufs[q].segment();
    }

    /** Packets this side's QPs accepted (requests and responses), from the engine's counters. */
    private static long packetsReceived(NetPerfSession s) {
        long n = 0;
        for (org.urdma.verbs.QueuePair qp : s.qps) n += Stats.of(qp).get(Counter.RCVD_PKTS);
        return n;
    }

    private static long rnrNaksSent(NetPerfSession s) {
        long n = 0;
        for (org.urdma.verbs.QueuePair qp : s.qps) n += Stats.of(qp).get(Counter.RNR_NAKS_SENT);
        return n;
    }

    /** How long SENDs may meet only RNR NAKs before -b concludes the peer posts no receives at all. */
    private static final long NO_RECEIVES_NANOS = 2_000_000_000L;

    private static long rnrNaksReceived(NetPerfSession s) {
        long n = 0;
        for (org.urdma.verbs.QueuePair qp : s.qps) n += Stats.of(qp).get(Counter.RCVD_RNR_ERR);
        return n;
    }

    /** increase_loc_addr/increase_rem_addr for the current size: at most half the cycle buffer moves on per request. */
    private Addressing addressing(int cycle, int line) {
        long step = size <= cycle / 2 ? inc(size, line) : 0;
        return new Addressing(step, step == 0 ? 1 : (int) (cycle / step));
    }

    /** Source: urdma's pattern. Target: the pattern (READ), zeros (atomics), the canary (WRITE). Slots: zero. */
    private void prepareBuffer(NetPerfSession s, int q) {
        MemorySegment m = s.bufs[q].segment();
        fillPattern(m, layout.source(), layout.unit);
        MemorySegment t = m.asSlice(layout.target(), layout.unit);
        switch (op) {
            case RDMA_READ -> fillPattern(m, layout.target(), layout.unit);
            case RDMA_WRITE -> t.fill(CANARY);
            default -> t.fill((byte) 0);
        }
        m.asSlice(2 * layout.unit).fill((byte) 0);
    }

    /** urdma's pattern: the same function of the offset in the region, in source and READ target alike. */
    static void fillPattern(MemorySegment m, long at, long bytes) {
        for (long i = 0; i < bytes; i++) m.set(ValueLayout.JAVA_BYTE, at + i, patternByte(i));
    }

    static byte patternByte(long i) {
        return (byte) (PerfSide.pattern(i >>> 3) >>> (8 * (i & 7)));
    }

    static boolean isPattern(MemorySegment m, long at, long regionOffset, long bytes) {
        for (long i = 0; i < bytes; i++) {
            if (m.get(ValueLayout.JAVA_BYTE, at + i) != patternByte(regionOffset + i)) return false;
        }
        return true;
    }

    /** increase_loc_addr/increase_rem_addr: the n-th request's offset in the cycle buffer. */
    record Addressing(long step, int period) {
        long offset(long n) {
            return step == 0 ? 0 : (n % period) * step;
        }

        int place(long n) {
            return (int) (n % period);
        }
    }

    /** What the client measured: perftest's report fields (iterations: -n per QP times the QPs, or those sampled with -D). */
    record Result(double peak, double avg, double rate, long iterations, java.util.List<String> checks) {
    }

    /** The client's window over all QPs, checking READ data and atomic results as the completions arrive. */
    private final class Window {
        final NetPerfSession s;
        final Addressing a;
        final AddressHandle[] ah;
        final int q;
        final MemorySegment[][] readRef;
        final long[][] atomicLast;
        final long[][] atomicFirst;
        final long[] checked;
        long reads, atomics;
        /** -b send_bw: the receiving half of the run, fed the receive completions this window's polls find. */
        SendSink sink;

        Window(NetPerfSession s, Addressing a, AddressHandle[] ah) {
            this.s = s;
            this.a = a;
            this.ah = ah;
            this.q = s.qps.length;
            this.readRef = new MemorySegment[q][a.period()];
            this.atomicLast = new long[q][a.period()];
            this.atomicFirst = new long[q][a.period()];
            this.checked = new long[q];
        }

        Result run() {
            SendWorkRequest wr = new SendWorkRequest();
            WorkCompletion[] wcs = new WorkCompletion[16];
            for (int i = 0; i < wcs.length; i++) wcs[i] = new WorkCompletion();
            long[] posted = new long[q], completed = new long[q], signaled = new long[q];
            // force_dependecies: every 100th (at most the tx depth) signaled; above 8 KiB every request, except on UD;
            // -l: the last of each post list (cq_mod = post_list)
            int postList = o.postList;
            int moderation = postList > 1 ? postList : ah[0] == null ? PerfPatterns.moderation(txDepth, size) : PerfPatterns.moderation(txDepth);
            PerftestPeak peakTimes = timed() ? null : PerftestPeak.forRun(iters, q, postList, moderation);
            long stall = Duration.ofSeconds(s.n.cmTimeoutSeconds).toNanos();
            double gap = gapNanos(); // --rate_limit: the n-th request (all QPs together) waits until start + n * gap
            long totalPosted = 0;
            long start = System.nanoTime(), last = start, done = 0;
            // -D: posting goes on until the end; completions count only between the margins (perftest's SAMPLE_STATE)
            long sampleFrom = start + marginNanos, sampleTo = start + durationNanos - marginNanos, end = start + durationNanos;
            long sampled = 0;
            boolean sending = true;
            int running = q;
            while (running > 0) {
                if (timed() && sending && System.nanoTime() - end >= 0) {
                    sending = false; // perftest's END_STATE: no more requests; wait for the last signaled one of each QP
                    running = 0;
                    for (int i = 0; i < q; i++) if (completed[i] < signaled[i]) running++;
                    if (running == 0) break;
                }
                for (int i = 0; i < q && sending; i++) {
                    // -l: a whole post list or nothing (perftest: scnt + post_list <= iters, outstanding + post_list <= tx depth)
                    while ((timed() || posted[i] + postList <= iters) && posted[i] - completed[i] + postList <= txDepth
                            && (gap == 0 || System.nanoTime() - start >= (long) (totalPosted * gap))) {
                        if (peakTimes != null) peakTimes.posted(totalPosted, System.nanoTime());
                        for (int l = 0; l < postList; l++) {
                            totalPosted++;
                            boolean signal = (posted[i] + 1) % moderation == 0 || (!timed() && posted[i] + 1 == iters);
                            prepare(i, wr, posted[i]).wrId(posted[i]).flags((signal ? SendFlags.SIGNALED : 0) | inline());
                            s.qps[i].postSend(wr);
                            posted[i]++;
                            if (signal) signaled[i] = posted[i];
                        }
                    }
                }
                s.progress();
                int polled = 0;
                for (int i = 0; i < q; i++) {
                    int k = s.cqs[i].poll(wcs);
                    polled += k;
                    for (int j = 0; j < k; j++) {
                        WorkCompletion wc = wcs[j];
                        if (wc.status != WcStatus.SUCCESS) {
                            throw NetPerf.failed(s, "completion with error " + wc.status + " (vendor err " + wc.vendorErr
                                    + ") on QP " + i + " request " + wc.wrId + " (" + wc.opcode + ")"
                                    + (wc.status == WcStatus.RETRY_EXC_ERR ? RetryExhaustion.of(s.qps[i]) : ""));
                        }
                        if (wc.opcode == WcOpcode.RECV) {
                            if (sink != null) sink.accept(i, wc);
                            continue;
                        }
                        long upTo = wc.wrId + 1;
                        for (long n = completed[i]; n < upTo; n++) check(i, n);
                        done += upTo - completed[i];
                        if (peakTimes != null) peakTimes.completed(done, System.nanoTime());
                        if (timed()) {
                            long now = System.nanoTime();
                            if (now - sampleFrom >= 0 && now - sampleTo < 0) {
                                sampled += upTo - completed[i];
                            }
                        }
                        completed[i] = upTo;
                        if (timed() ? !sending && completed[i] == signaled[i] : completed[i] == iters) running--;
                    }
                }
                long now = System.nanoTime();
                if (polled > 0) {
                    last = now;
                } else if (op == WrOpcode.SEND && !s.server && !o.bidirectional && rnrNaksSent(s) > 0) {
                    refuseDuplexSends(s); // a -b server's SENDs found no receive here: fail now, not after the run
                } else if (sink != null && done == 0 && now - start > NO_RECEIVES_NANOS && rnrNaksReceived(s) > 0) {
                    // a peer without -b posts no receives, so none of our SENDs ever completes; a -b peer that is
                    // slow to repost (a TCG guest's rxe) also RNR NAKs, but its receives let SENDs complete
                    throw new NetPerf.CompletionError("-b: the peer answers this side's SENDs with RNR NAKs (it posts no receives): "
                            + "it runs without -b; run both sides with -b or neither");
                } else if (now - last > stall) {
                    throw new NetPerf.CompletionError("no progress for " + s.n.cmTimeoutSeconds + " s waiting for completions; done: "
                            + done + (timed() ? "" : " of " + iters * q) + NetPerf.stallHint(s.qps));
                } else {
                    Thread.onSpinWait();
                }
            }
            if (timed()) {
                // perftest's duration report: the sampled completions over the sampling time, no peak (noPeak)
                double el = Math.max(1, sampleTo - sampleFrom);
                return new Result(0, sampled * (double) size * 1e9 / el, sampled * 1e9 / el, sampled, summary());
            }
            long el = Math.max(1, System.nanoTime() - start);
            double avg = (double) done * size * 1e9 / el;
            // perftest's peak from the post and completion times; none (0) for a run too long to time, as perftest's noPeak
            double best = peakTimes != null ? peakTimes.bytesPerSecond(size) : 0;
            // -q: the iterations of all QPs, as perftest reports iters * num_of_qps
            return new Result(best, avg, done * 1e9 / el, iters * q, summary());
        }

        /** -I: requests of at most the inline size carry their data in the work request (IBV_SEND_INLINE). */
        int inline() {
            return op != WrOpcode.RDMA_READ && !op.isAtomic() && size <= o.inlineSize ? SendFlags.INLINE : 0;
        }

        /** Nanoseconds between two requests for --rate_limit/--rate_units (perftest's SW_RATE_LIMIT), 0 without. */
        double gapNanos() {
            if (o.rateLimit == 0) return 0;
            return switch (o.rateUnits) {
                case "M" -> size * 1e9 / (o.rateLimit * (1 << 20));
                case "g" -> size * 8 / o.rateLimit;
                case "p" -> 1e9 / o.rateLimit;
                default -> throw new IllegalArgumentException("--rate_units: M, g or p, was '" + o.rateUnits + "'");
            };
        }

        SendWorkRequest prepare(int i, SendWorkRequest wr, long n) {
            long off = a.offset(n);
            long rva = s.remotes[i].va() + off;
            int rkey = s.remotes[i].rkey();
            return switch (op) {
                case RDMA_WRITE -> wr.reset().opcode(op).addSge(s.bufs[i], layout.source() + off, size).remote(rva, rkey);
                case RDMA_READ -> wr.reset().opcode(op).addSge(s.bufs[i], layout.slot(n), size).remote(rva, rkey);
                case ATOMIC_FETCH_AND_ADD -> wr.reset().opcode(op).addSge(s.bufs[i], layout.slot(n), 8).remote(rva, rkey).atomic(1, 0);
                case ATOMIC_CMP_AND_SWP -> wr.reset().opcode(op).addSge(s.bufs[i], layout.slot(n), 8).remote(rva, rkey).atomic(0, 0);
                case SEND -> {
                    wr.reset().opcode(WrOpcode.SEND).addSge(s.bufs[i], layout.source() + off, size);
                    if (ah[i] != null) wr.ud(ah[i], s.remotes[i].qpn(), QKEY);
                    yield wr;
                }
                default -> throw new IllegalArgumentException("opcode: not a perftest bandwidth operation: " + op);
            };
        }

        /** Request n of QP i is complete: its READ data or atomic result is in its slot until request n + tx depth. */
        void check(int i, long n) {
            MemorySegment m = s.bufs[i].segment();
            int p = a.place(n);
            if (op == WrOpcode.RDMA_READ) {
                long at = layout.slot(n);
                if (readRef[i][p] == null) {
                    readRef[i][p] = MemorySegment.ofArray(m.asSlice(at, size).toArray(ValueLayout.JAVA_BYTE));
                } else {
                    long bad = MemorySegment.mismatch(m, at, at + size, readRef[i][p], 0, size);
                    if (bad >= 0) {
                        throw new NetPerf.CompletionError("READ check FAILED: QP " + i + " read " + n + " of remote offset "
                                + a.offset(n) + " differs from the first read of that address at byte " + bad);
                    }
                }
                reads++;
            } else if (op.isAtomic()) {
                long v = m.get(ValueLayout.JAVA_LONG_UNALIGNED, layout.slot(n));
                if (n < a.period()) {
                    atomicFirst[i][p] = v;
                } else {
                    long want = op == WrOpcode.ATOMIC_FETCH_AND_ADD ? atomicLast[i][p] + 1 : atomicLast[i][p];
                    if (v != want) {
                        throw new NetPerf.CompletionError("atomic check FAILED: QP " + i + " " + PerfTest.atomicName(o) + " " + n
                                + " at remote offset " + a.offset(n) + " returned " + v + ", expected " + want
                                + " (the previous result at that address " + atomicLast[i][p] + ")");
                    }
                }
                atomicLast[i][p] = v;
                atomics++;
            }
        }

        java.util.List<String> summary() {
            java.util.List<String> lines = new java.util.ArrayList<>();
            if (op == WrOpcode.RDMA_READ) {
                boolean urdma = true, allZero = true;
                for (int i = 0; i < q; i++) {
                    for (int p = 0; p < a.period(); p++) {
                        MemorySegment r = readRef[i][p];
                        if (r == null) continue;
                        urdma &= isPattern(r, 0, a.offset(p), size);
                        for (long b = 0; b < size; b++) allZero &= r.get(ValueLayout.JAVA_BYTE, b) == 0;
                    }
                }
                if (allZero) throw new NetPerf.CompletionError("READ check FAILED: every byte read is zero");
                lines.add(urdma ? String.format(" READ data verified: %d bytes match the server's pattern, in each of %d reads", size, reads)
                        : String.format(" READ data verified: %d reads of %d bytes, each identical to the first read of its remote address, not all zero (the server's own fill)", reads, size));
            } else if (op.isAtomic()) {
                boolean fromZero = true;
                for (long[] f : atomicFirst) for (int p = 0; p < Math.min(a.period(), iters); p++) fromZero &= f[p] == 0;
                lines.add(String.format(" %s results verified: %d operations, the results at each of %d remote addresses %s%s",
                        PerfTest.atomicName(o), atomics, Math.min(a.period(), iters),
                        op == WrOpcode.ATOMIC_FETCH_AND_ADD ? "step by exactly one" : "never change",
                        fromZero ? " (from the zeros a urdma server starts with)" : " (from the server's own fill)"));
            }
            return lines;
        }
    }

    /** The send_bw server: rx depth receives, each in its own slot, checked and reposted as it completes. */
    private final class SendSink {
        final NetPerfSession s;
        final Addressing a;
        final boolean ud;
        final long[] received;
        final long[] posted;
        final MemorySegment[][] ref;
        final ReceiveWorkRequest rwr = new ReceiveWorkRequest();
        final WorkCompletion[] wcs = new WorkCompletion[16];
        long last, first, end = Long.MAX_VALUE, sampled;
        int open;

        SendSink(NetPerfSession s, Addressing a, boolean ud) {
            this.s = s;
            this.a = a;
            this.ud = ud;
            this.received = new long[s.qps.length];
            this.posted = new long[s.qps.length];
            this.ref = new MemorySegment[s.qps.length][a.period()];
            this.open = s.qps.length;
            for (int i = 0; i < wcs.length; i++) wcs[i] = new WorkCompletion();
        }

        void postAll() {
            for (int i = 0; i < s.qps.length; i++) {
                for (int r = 0; r < layout.slots; r++) post(i, r);
            }
        }

        void post(int i, int slot) {
            rwr.reset().wrId(slot).addSge(s.bufs[i], layout.slot(slot), (int) layout.slotSize);
            s.qps[i].postRecv(rwr);
            posted[i]++;
        }

        /**
         * Until -n messages arrived on every QP, or with -D until the duration passed from the first message
         * (set_on_first_rx_packet): every receive is reposted then, so a timed sender never meets an RNR NAK.
         */
        void run(PrintStream out) {
            awaitAll();
            report(out, true);
        }

        /** Until -n messages arrived on every QP (or with -D the duration passed from the first); see {@link #run}. */
        void awaitAll() {
            awaitAll(0);
        }

        /** As {@link #awaitAll()}; with {@code firstWithin} &gt; 0 (-b) the peer's first message must come within that many ns. */
        void awaitAll(long firstWithin) {
            long stall = Duration.ofSeconds(s.n.cmTimeoutSeconds).toNanos();
            last = System.nanoTime();
            long started = last;
            while (timed() ? first == 0 || System.nanoTime() - end < 0 : open > 0) {
                s.progress();
                int polled = 0;
                for (int i = 0; i < s.qps.length; i++) {
                    int k = s.cqs[i].poll(wcs);
                    polled += k;
                    for (int j = 0; j < k; j++) {
                        WorkCompletion wc = wcs[j];
                        if (wc.status != WcStatus.SUCCESS) {
                            throw new NetPerf.CompletionError("receive completion with error " + wc.status + " on QP " + i
                                    + " after " + received[i] + " messages");
                        }
                        if (wc.opcode == WcOpcode.RECV) accept(i, wc);
                    }
                }
                long now = System.nanoTime();
                if (polled > 0) {
                    last = now;
                } else if (firstWithin > 0 && first == 0 && now - started > firstWithin) {
                    // a -b peer sends from the barrier on, as this side did: nothing at all by now is a peer without -b
                    throw new NetPerf.CompletionError("-b: the peer sent nothing while this side ran its " + iters
                            + " messages and " + firstWithin / 1_000_000 + " ms more: it runs without -b; run both sides with -b or neither");
                } else if (now - last > stall) {
                    StringBuilder sb = new StringBuilder();
                    for (int i = 0; i < received.length; i++) sb.append(i == 0 ? "" : ", ").append(received[i]);
                    throw new NetPerf.CompletionError((o.bidirectional ? "-b: " : "") + "no message for " + s.n.cmTimeoutSeconds
                            + " s: received " + sb + (timed() ? "" : " of " + iters) + " per QP"
                            + (ud ? " (UD drops what finds no receive posted)" : "")
                            + (o.bidirectional ? "; does the peer run -b too?" : ""));
                } else {
                    Thread.onSpinWait();
                }
            }
        }

        /** A receive of QP i completed: checked, counted, its slot reposted while the run still needs it. */
        void accept(int i, WorkCompletion wc) {
            long now = System.nanoTime();
            last = now;
            if (first == 0) {
                first = now;
                end = timed() ? now + durationNanos : end;
            }
            if (timed() && now - first >= marginNanos && now - first < durationNanos - marginNanos) sampled++;
            int slot = (int) wc.wrId;
            check(i, slot, wc.byteLen);
            received[i]++;
            if (received[i] == iters) open--;
            if (timed() || posted[i] < iters) post(i, slot); // perftest reposts only what the run still needs
        }

        /** What arrived; with {@code withRow} the receiver's own row (a -b run prints the sum of both sides instead). */
        void report(PrintStream out, boolean withRow) {
            long total = 0;
            for (long r : received) total += r;
            boolean urdma = true;
            for (MemorySegment[] perQp : ref) {
                for (int p = 0; p < a.period(); p++) {
                    if (perQp[p] != null) urdma &= isPattern(perQp[p], 0, a.offset(p), size);
                }
            }
            // the receiver's own row, as run_iter_bw_server's print_report_bw: from the first message to the last
            // (-D: the sampled messages over the sampling time)
            double el = timed() ? Math.max(1, durationNanos - 2 * marginNanos) : Math.max(1, last - first);
            long counted = timed() ? sampled : total;
            if (withRow) row(out, 0, counted * (double) size * 1e9 / el, counted * 1e9 / el, size, counted);
            out.println(urdma ? String.format(" remote memory verified: %d bytes match the client's pattern in each of %d messages", size, total)
                    : String.format(" remote memory verified: %d messages of %d bytes, each identical to the client's earlier messages from the same source address (the client's own fill)", total, size));
            out.printf(" %d-byte messages received: %d%n", size, total);
        }

        /** Runs {@code meet} on another thread and meanwhile reposts every receive that completes (-D: no RNR NAK at the end). */
        void repostDuring(Runnable meet) {
            java.util.concurrent.CompletableFuture<Void> met = java.util.concurrent.CompletableFuture.runAsync(
                    meet, r -> Thread.ofPlatform().daemon().name("perf-barrier").start(r));
            WorkCompletion[] wcs = new WorkCompletion[16];
            for (int i = 0; i < wcs.length; i++) wcs[i] = new WorkCompletion();
            while (!met.isDone()) {
                int polled = 0;
                for (int i = 0; i < s.qps.length; i++) {
                    int k = s.cqs[i].poll(wcs);
                    polled += k;
                    for (int j = 0; j < k; j++) {
                        if (wcs[j].status == WcStatus.SUCCESS && wcs[j].opcode == WcOpcode.RECV) post(i, (int) wcs[j].wrId);
                    }
                }
                if (polled == 0) java.util.concurrent.locks.LockSupport.parkNanos(20_000);
            }
            try {
                met.join();
            } catch (java.util.concurrent.CompletionException e) {
                if (e.getCause() instanceof RuntimeException re) throw re;
                throw e;
            }
        }

        /** Message number received[i] of QP i landed in {@code slot}: its length, and its bytes against its source's first message. */
        void check(int i, int slot, int byteLen) {
            int skip = ud ? GRH : 0;
            if (byteLen != size + skip) {
                throw new NetPerf.CompletionError("receive check FAILED: QP " + i + " message " + received[i] + " has " + byteLen
                        + " bytes, expected " + (size + skip) + (ud ? " (40 of them the GRH)" : "") + " (same -s on both sides?)");
            }
            MemorySegment m = s.bufs[i].segment();
            long at = layout.slot(slot) + skip;
            int p = a.place(received[i]);
            if (ref[i][p] == null) {
                ref[i][p] = MemorySegment.ofArray(m.asSlice(at, size).toArray(ValueLayout.JAVA_BYTE));
                return;
            }
            long bad = MemorySegment.mismatch(m, at, at + size, ref[i][p], 0, size);
            if (bad >= 0) {
                throw new NetPerf.CompletionError("receive check FAILED: QP " + i + " message " + received[i] + " differs at byte " + bad
                        + " from message " + p + ", sent from the same source address");
            }
        }
    }

    /** After the client's run: exactly the places perftest targets changed, the rest of the buffer did not. */
    private void verifyTarget(NetPerfSession s, int q, Addressing a, long writes, PrintStream out) {
        MemorySegment m = s.bufs[q].segment();
        if (!isPattern(m, layout.source(), 0, layout.unit)) fail(q, "the source region changed");
        for (long i = 2 * layout.unit; i < layout.bytes(); i++) {
            if (m.get(ValueLayout.JAVA_BYTE, i) != 0) fail(q, "byte " + i + " past the target region changed");
        }
        long t = layout.target();
        int places = (int) Math.min(a.period(), writes);
        if (op == WrOpcode.RDMA_WRITE && o.all) {
            verifySweepTarget(m, q, t, out);
            return;
        }
        switch (op) {
            case RDMA_READ -> {
                if (!isPattern(m, t, 0, layout.unit)) fail(q, "a READ changed the target region");
                out.printf(" memory verified: %d bytes of the target region unchanged by the client's READs%n", layout.unit);
            }
            case RDMA_WRITE -> {
                boolean urdma = true;
                for (long off = 0; off < layout.unit; off++) {
                    int p = a.step() == 0 ? (off < size ? 0 : -1) : (int) (off / a.step());
                    boolean inMessage = p >= 0 && p < places && off - p * Math.max(a.step(), 0) < size;
                    if (!inMessage && m.get(ValueLayout.JAVA_BYTE, t + off) != CANARY) {
                        fail(q, "the WRITE reached offset " + off + " of the target region, outside every message's place");
                    }
                }
                for (int p = 0; p < places; p++) {
                    long at = t + a.offset(p);
                    urdma &= isPattern(m, at, a.offset(p), size);
                    boolean changed = false;
                    for (long i = 0; i < size && !changed; i++) changed = m.get(ValueLayout.JAVA_BYTE, at + i) != CANARY;
                    if (!changed) fail(q, "no WRITE arrived at offset " + a.offset(p) + " of the target region");
                }
                out.println(urdma ? String.format(" remote memory verified: %d bytes match the client's pattern in each of %d written places", size, places)
                        : String.format(" remote memory verified: %d places of %d bytes written, nothing outside them (the client's own fill)", places, size));
            }
            default -> {
                long total = 0, warm = 0;
                for (long off = 0; off < layout.unit; off += 8) {
                    long v = m.get(ValueLayout.JAVA_LONG_UNALIGNED, t + off);
                    boolean place = a.step() > 0 && off % a.step() == 0 && off / a.step() < places;
                    if (!place) {
                        if (v != 0) fail(q, "an atomic changed offset " + off + " of the target region, not a place perftest targets");
                        continue;
                    }
                    int p = (int) (off / a.step());
                    long expect = op == WrOpcode.ATOMIC_CMP_AND_SWP ? 0 : (iters - p + a.period() - 1) / a.period();
                    if (op == WrOpcode.ATOMIC_FETCH_AND_ADD && p == 0 && v > expect) {
                        warm = v - expect; // perftest's warm-up: -t requests at the first address
                        v = expect;
                    }
                    if (v != expect) fail(q, PerfTest.atomicName(o) + " left " + v + " at offset " + off + ", expected " + expect);
                    total += v;
                }
                out.printf(" remote memory verified: %s moved each of %d target addresses as %d operations do%s%n",
                        PerfTest.atomicName(o), places, iters, warm > 0 ? " (plus " + warm + " warm-up operations at the first)" : "");
                if (op == WrOpcode.ATOMIC_FETCH_AND_ADD && total != iters) fail(q, "the counters add up to " + total + ", not " + iters);
            }
        }
    }

    /**
     * After a -a sweep of WRITEs the last, largest message covers the whole target region: it holds the client's
     * pattern (a urdma client) or its rand() fill, in which the canary byte is as rare as any other value.
     */
    private void verifySweepTarget(MemorySegment m, int q, long t, PrintStream out) {
        if (isPattern(m, t, 0, size)) {
            out.printf(" remote memory verified: the last %d-byte WRITE of the sweep matches the client's pattern%n", size);
            return;
        }
        long canaries = 0;
        for (long i = 0; i < size; i++) if (m.get(ValueLayout.JAVA_BYTE, t + i) == CANARY) canaries++;
        if (canaries > size / 64) {
            fail(q, canaries + " of the " + size + " bytes the sweep's last WRITE covers still hold the canary");
        }
        out.printf(" remote memory verified: the last %d-byte WRITE of the sweep covered the target region (%d canary-valued bytes, "
                + "the client's own fill), nothing outside it%n", size, canaries);
    }

    /** A send_bw client posts no receives: a SEND that came to it (answered with an RNR NAK) is a -b peer's. */
    private static void refuseDuplexSends(NetPerfSession s) {
        for (org.urdma.verbs.QueuePair qp : s.qps) {
            long rnrNaks = Stats.of(qp).get(Counter.RNR_NAKS_SENT);
            if (rnrNaks > 0) {
                throw new NetPerf.CompletionError("-b: the peer sent SENDs to this client, which posts no receives (" + rnrNaks
                        + " RNR NAKs sent): it runs bidirectionally; run both sides without -b");
            }
        }
    }

    /** A client's buffer after its run: the source still holds the pattern, the advertised region its first fill. */
    private void verifyUntouched(NetPerfSession s, int q, PrintStream out) {
        MemorySegment m = s.bufs[q].segment();
        if (!isPattern(m, layout.source(), 0, layout.unit)) fail(q, "the source region changed during the run");
        boolean same = switch (op) {
            case RDMA_READ -> isPattern(m, layout.target(), 0, layout.unit);
            case RDMA_WRITE -> m.asSlice(layout.target(), layout.unit).mismatch(
                    MemorySegment.ofArray(filled(CANARY))) < 0;
            default -> m.asSlice(layout.target(), layout.unit).mismatch(MemorySegment.ofArray(filled((byte) 0))) < 0;
        };
        if (!same) {
            throw new NetPerf.CompletionError("-b: the peer wrote into this client's advertised region (QP " + q
                    + "): it runs bidirectionally; run both sides without -b");
        }
        out.printf(" local memory verified: the %d-byte source unchanged, nothing written into the advertised region%n", layout.unit);
    }

    private byte[] filled(byte b) {
        byte[] a = new byte[(int) layout.unit];
        java.util.Arrays.fill(a, b);
        return a;
    }

    private static void fail(int q, String what) {
        throw new NetPerf.CompletionError("remote memory check FAILED on QP " + q + ": " + what);
    }

    private String columns() {
        String unit = o.gbits ? "Gb/sec" : "MB/sec";
        return String.format(" #bytes     #iterations    BW peak[%s]    BW average[%s]   MsgRate[Mpps]", unit, unit);
    }

    private void row(PrintStream out, double peak, double avg, double rate) {
        row(out, peak, avg, rate, size, iters);
    }

    private void row(PrintStream out, double peak, double avg, double rate, long sz, long it) {
        out.printf(" %-10d %-16d %-18.2f %-20.2f %.6f%n", sz, it, bw(peak), bw(avg), rate / 1e6);
    }

    private double bw(double bytesPerSec) {
        return o.gbits ? bytesPerSec * 8 / 1e9 : bytesPerSec / (1 << 20);
    }
}
