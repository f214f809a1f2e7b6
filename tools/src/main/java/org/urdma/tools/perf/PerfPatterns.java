package org.urdma.tools.perf;

import org.HdrHistogram.Histogram;
import org.urdma.verbs.QpType;
import org.urdma.verbs.SendFlags;
import org.urdma.verbs.SendWorkRequest;
import org.urdma.verbs.WcOpcode;
import org.urdma.verbs.WorkCompletion;
import org.urdma.verbs.WrOpcode;

/**
 * The three loops every perftest program is made of, written once over {@link PerfSide}: the bandwidth window,
 * the ping-pong and the client-only round trip. Each returns what perftest reports for it.
 */
final class PerfPatterns {
    /** perftest's CQ moderation: every 100th request is signaled. */
    static final int CQ_MODERATION = 100;
    /** perftest's MSG_SIZE_CQ_MOD_LIMIT: larger messages are each signaled (cq_mod 1) unless on UD. */
    static final int CQ_MOD_SIZE_LIMIT = 8192;
    /** Receives the SEND side keeps posted (perftest's default rx-depth). */
    static final int RX_DEPTH = 512;
    /** Immediate data of the message that ends a send-bw phase (low bits: the phase). */
    static final int END = 0xE0D00000;

    private PerfPatterns() {
    }

    /** Like perftest: never signal less often than the depth, or the window would wait for a completion never asked for. */
    static int moderation(int depth) {
        return Math.max(1, Math.min(CQ_MODERATION, depth));
    }

    /**
     * perftest's rule for connected QPs: messages over MSG_SIZE_CQ_MOD_LIMIT (8 KiB) are each signaled. Besides matching
     * the stock tool, a -D run counts whole completions: with every 100th 64 KiB message signaled, a 4 s sample window
     * counts in steps of 25 messages a second (1.3 % of 1 Gbit/s).
     */
    static int moderation(int depth, int size) {
        return size > CQ_MOD_SIZE_LIMIT ? 1 : moderation(depth);
    }

    /** Bandwidth result: average and peak in bytes/s, messages per second, how many completed (duration mode). */
    record Bw(double avgBytesPerSec, double peakBytesPerSec, double msgRate, long iterations, long total, long peerReceived) {
    }

    /**
     * Client of a bandwidth test: keeps {@code depth} requests in flight on each QP until {@code iters} completed on
     * each, or, with {@code durationNanos} &gt; 0, until that time passed (the request posted then is each QP's last
     * and is signaled); then, as perftest's -D reports, the average is the completions between the margins
     * ({@link PerfOptions#marginNanos}) over that time. All QPs are one device's, advanced through the first side.
     * The peak is perftest's, from the post and completion times {@code peakTimes} keeps (0 without them, as perftest's
     * noPeak: -D, or more iterations than it times).
     */
    static Bw window(PerfSide[] ss, WrOpcode op, int size, long iters, long durationNanos, int depth, int phase) {
        return window(ss, op, size, iters, durationNanos, depth, phase, null, null);
    }

    /**
     * The same, ended by {@code warmup} rather than by {@code durationNanos} when it is given; {@code peakTimes}, when
     * given, takes the per-iteration timestamps perftest computes its peak from.
     */
    static Bw window(PerfSide[] ss, WrOpcode op, int size, long iters, long durationNanos, int depth, int phase, JitWarmup warmup,
                     PerftestPeak peakTimes) {
        int q = ss.length;
        SendWorkRequest wr = new SendWorkRequest();
        long[] base = new long[q], posted = new long[q], completed = new long[q], limit = new long[q];
        for (int i = 0; i < q; i++) {
            base[i] = op.isAtomic() ? ss[i].readRemoteLong() : 0;
            limit[i] = durationNanos > 0 ? Long.MAX_VALUE : iters;
        }
        int moderation = moderation(depth, size); // (UD never gets here with more than one MTU)
        long start = System.nanoTime(), end = start + durationNanos, last = start;
        if (warmup != null) warmup.start(start);
        long margin = PerfOptions.marginNanos(durationNanos), sampleFrom = start + margin, sampleTo = end - margin, sampled = 0;
        long done = 0, totalPosted = 0;
        int running = q;
        while (running > 0) {
            for (int i = 0; i < q; i++) {
                PerfSide s = ss[i];
                while (posted[i] < limit[i] && posted[i] - completed[i] < depth) {
                    if (durationNanos > 0 && ended(warmup, System.nanoTime(), end)) limit[i] = posted[i] + 1;
                    boolean signal = (posted[i] + 1) % moderation == 0 || posted[i] + 1 == limit[i];
                    prepare(s, wr, op, size, posted[i], base[i]).wrId(posted[i]).flags(signal ? SendFlags.SIGNALED : 0);
                    if (peakTimes != null) peakTimes.posted(totalPosted, System.nanoTime());
                    s.qp.postSend(wr);
                    posted[i]++;
                    totalPosted++;
                }
            }
            ss[0].progress();
            int polled = 0;
            for (int i = 0; i < q; i++) {
                PerfSide s = ss[i];
                int k = s.cq.poll(s.wcs);
                polled += k;
                for (int j = 0; j < k; j++) {
                    WorkCompletion wc = s.wcs[j];
                    s.check(wc);
                    if (wc.opcode == WcOpcode.RECV) {
                        s.recvsPosted--;
                        continue;
                    }
                    long upTo = wc.wrId + 1;
                    done += upTo - completed[i];
                    if (peakTimes != null) peakTimes.completed(done, System.nanoTime());
                    if (durationNanos > 0) {
                        long now = System.nanoTime();
                        if (now - sampleFrom >= 0 && now - sampleTo < 0) sampled += upTo - completed[i];
                    }
                    completed[i] = upTo;
                    if (completed[i] == limit[i]) running--;
                }
            }
            if (polled > 0) last = System.nanoTime();
            else ss[0].stalled(last, "completions; done: ", done);
        }
        long el = System.nanoTime() - start;
        long received = 0;
        for (int i = 0; i < q; i++) {
            PerfSide s = ss[i];
            if (op == WrOpcode.SEND) {
                long count = endSends(s, size, phase);
                received = received < 0 || count < 0 ? -1 : received + count;
            }
            if (op.isAtomic()) {
                long now = s.readRemoteLong();
                if (now != base[i] + completed[i]) {
                    throw new NetPerf.CompletionError("atomic check FAILED on QP " + i + ": the remote value is " + now + " after "
                            + completed[i] + " operations from " + base[i] + " (expected " + (base[i] + completed[i]) + ")");
                }
            }
        }
        if (op != WrOpcode.SEND) received = done;
        if (durationNanos > 0) {
            double sampledNanos = Math.max(1, sampleTo - sampleFrom);
            double avg = sampled * (double) size * 1e9 / sampledNanos;
            return new Bw(avg, 0, sampled * 1e9 / sampledNanos, done / q, done, received);
        }
        double avg = (double) done * size * 1e9 / el;
        double peak = peakTimes != null ? peakTimes.bytesPerSecond(size) : 0;
        return new Bw(avg, peak, done * 1e9 / el, done / q, done, received);
    }

    private static boolean ended(JitWarmup warmup, long now, long end) {
        return warmup == null ? now - end >= 0 : warmup.over(now);
    }

    /** Fills {@code wr} for the {@code n}-th request of a window: same bytes, same remote place, like perftest. */
    private static SendWorkRequest prepare(PerfSide s, SendWorkRequest wr, WrOpcode op, int size, long n, long base) {
        long target = s.remoteTarget();
        return switch (op) {
            case SEND -> s.send(wr, size);
            case RDMA_WRITE -> wr.reset().opcode(op).addSge(s.buf, 0, size).remote(target, s.remoteRkey);
            case RDMA_READ -> wr.reset().opcode(op).addSge(s.buf, s.recvOffset, size).remote(s.remoteVa, s.remoteRkey);
            // in order on RC, so the n-th compare-and-swap finds the value the (n-1)-th left
            case ATOMIC_CMP_AND_SWP -> wr.reset().opcode(op).addSge(s.buf, s.recvOffset, 8).remote(target, s.remoteRkey)
                    .atomic(base + n, base + n + 1);
            case ATOMIC_FETCH_AND_ADD -> wr.reset().opcode(op).addSge(s.buf, s.recvOffset, 8).remote(target, s.remoteRkey)
                    .atomic(1, 0);
            default -> throw new IllegalArgumentException("opcode: not a perftest operation: " + op);
        };
    }

    /**
     * Ends a send-bw phase: the END message (immediate data = END | phase) until the server answers with how many
     * data messages it received. On UC and UD either message may be lost (a full receive backlog drops frames on a
     * busy host), so END is repeated every millisecond, answers of earlier phases are told apart by their phase tag,
     * and an answer still missing after {@link #ANSWER_WAIT_NANOS} is given up: -1, the count is unknown here (the
     * server prints it). Returns the server's count or -1.
     */
    private static long endSends(PerfSide s, int size, int phase) {
        SendWorkRequest end = s.send(new SendWorkRequest(), size).opcode(WrOpcode.SEND_WITH_IMM).immData(END | (phase & 0xFFFF));
        boolean unreliable = s.qp.type() != QpType.RC;
        long begin = System.nanoTime(), last = begin, sent = 0;
        while (true) {
            long now = System.nanoTime();
            if (sent == 0 || (unreliable && now - last > 1_000_000L)) {
                if (unreliable && sent > 0 && now - begin > ANSWER_WAIT_NANOS) return -1;
                s.qp.postSend(end.wrId(-3).flags(SendFlags.SIGNALED));
                sent++;
                last = now;
            }
            s.progress();
            int k = s.cq.poll(s.wcs);
            for (int i = 0; i < k; i++) {
                WorkCompletion wc = s.wcs[i];
                s.check(wc);
                if (wc.opcode == WcOpcode.RECV) {
                    s.recvsPosted--;
                    s.postRecvs(1);
                    if ((wc.flags & WorkCompletion.WITH_IMM) != 0 && wc.immData >>> COUNT_BITS == (phase & 0xFF)) {
                        int count = wc.immData & COUNT_MASK;
                        return count == COUNT_MASK ? -1 : count;
                    }
                }
            }
            if (k == 0) s.stalled(begin, "the server's count of received messages", -1);
        }
    }

    /** How long a UC/UD client repeats END without an answer before it leaves the count unknown. */
    static final long ANSWER_WAIT_NANOS = 2_000_000_000L;
    /** The server's answer: the phase's low 8 bits above the count in 24 bits (all ones: too many to tell). */
    static final int COUNT_BITS = 24, COUNT_MASK = (1 << COUNT_BITS) - 1;

    static int answer(int phase, long count) {
        return (phase & 0xFF) << COUNT_BITS | (int) Math.min(count, COUNT_MASK);
    }

    /**
     * Server of send-bw: keeps receives posted on every QP and counts messages until each QP's client sent the END
     * of this phase, which it answers with that QP's count. Returns the total received.
     */
    static long sink(PerfSide[] ss, int phase) {
        Sink k = new Sink(ss, phase);
        long last = System.nanoTime();
        while (true) {
            ss[0].progress();
            int before = k.events;
            if (k.step()) return k.total;
            if (k.events != before) last = System.nanoTime();
            else ss[0].stalled(last, "the client's messages", -1);
        }
    }

    /** The send-bw server as a step function, so one thread can also run it beside the client (memory link). */
    static final class Sink {
        private final PerfSide[] ss;
        private final int phase;
        private final long[] received;
        private final boolean[] ended;
        private final SendWorkRequest answer = new SendWorkRequest();
        private int open;
        int events;
        long total;

        Sink(PerfSide[] ss, int phase) {
            this.ss = ss;
            this.phase = phase;
            this.received = new long[ss.length];
            this.ended = new boolean[ss.length];
            this.open = ss.length;
        }

        /** One pass over the QPs' completions, reposting receives; true once every QP's END was answered. */
        boolean step() {
            for (int q = 0; q < ss.length; q++) {
                // drain: every receive consumed is reposted before the next engine pass (UD drops otherwise)
                while (poll(q) == ss[q].wcs.length) {
                    Thread.onSpinWait();
                }
                ss[q].postRecvs(RX_DEPTH);
            }
            return open == 0;
        }

        /** One poll of QP {@code q}'s CQ: counts data, answers this phase's END; returns how many it got. */
        private int poll(int q) {
            PerfSide s = ss[q];
            int k = s.cq.poll(s.wcs);
            events += k;
            for (int i = 0; i < k; i++) {
                WorkCompletion wc = s.wcs[i];
                s.check(wc);
                if (wc.opcode != WcOpcode.RECV) continue;
                s.recvsPosted--;
                if ((wc.flags & WorkCompletion.WITH_IMM) == 0) {
                    received[q]++;
                } else if (!ended[q] && wc.immData == (END | (phase & 0xFFFF))) {
                    ended[q] = true;
                    open--;
                    total += received[q];
                    s.postRecvs(RX_DEPTH);
                    s.qp.postSend(s.send(answer, 8).opcode(WrOpcode.SEND_WITH_IMM).wrId(-4).immData(answer(phase, received[q]))
                            .flags(SendFlags.SIGNALED));
                }
            }
            return k;
        }
    }

    /** Receives a send-lat side has posted before the run (perftest: rx_depth 512, at most -n). */
    static int latRecvDepth(long iters) {
        return (int) Math.min(RX_DEPTH, Math.max(1, iters));
    }

    /** Largest message posted INLINE by the latency loops (perftest inlines up to ~220 bytes; the QPs here take 64). */
    static final int LAT_INLINE = 64;

    /**
     * Ping-pong of SENDs or WRITEs as perftest's run_iter_lat_send / run_iter_lat_write: each side waits for the
     * peer's n-th message, then posts its own n-th, signaled, and waits for that completion before going on (tx depth
     * 1, CQ moderation 1). ib_send_lat's client sends first; ib_write_lat's SERVER writes first. A WRITE copies the
     * first {@code size} bytes of the send region to the peer's receive region; its last byte carries the count
     * {@code (byte) n} (1, 2, ... 255, 0, 1, ...) and arrival is seen by polling that byte, as perftest polls its
     * buffer. A SEND side keeps {@link #latRecvDepth} receives posted from the start and reposts one per message only
     * while {@code received + depth <= n}, so exactly n are ever posted. The histogram holds half of each interval
     * between two of this side's posts (perftest's tposted deltas over rtt_factor 2): n - 1 values.
     */
    static Histogram pingPong(PerfSide s, WrOpcode op, int size, int iters) {
        return pingPong(s, op, size, iters, 0);
    }

    /**
     * The same after {@code warmup} unrecorded iterations, in one run (the count byte and the receives go on across
     * them); the peer runs {@code warmup + iters} iterations too.
     */
    static Histogram pingPong(PerfSide s, WrOpcode op, int size, int measured, int warmup) {
        Histogram h = s.latencies();
        SendWorkRequest wr = new SendWorkRequest();
        boolean first = op == WrOpcode.RDMA_WRITE ? s.server : !s.server;
        int iters = Math.addExact(warmup, measured);
        int depth = latRecvDepth(iters);
        if (op == WrOpcode.SEND) s.postRecvs(depth);
        long lastPost = 0;
        for (int n = 1; n <= iters; n++) {
            if (!first) await(s, op, size, n, depth, iters);
            else if (n > 1) await(s, op, size, n - 1, depth, iters);
            long now = System.nanoTime();
            if (n > warmup + 1) h.recordValue(Math.max(1, (now - lastPost) / 2));
            lastPost = now;
            post(s, wr, op, size, n);
            awaitSendCompletion(s, n);
        }
        if (first) await(s, op, size, iters, depth, iters); // the peer's last answer
        return h;
    }

    /** The same ping-pong with both sides on this thread (memory link, inline driver), in the same order. */
    static Histogram pingPong(PerfSide client, PerfSide server, WrOpcode op, int size, int iters) {
        Histogram h = client.latencies();
        SendWorkRequest wc = new SendWorkRequest(), ws = new SendWorkRequest();
        PerfSide first = op == WrOpcode.RDMA_WRITE ? server : client, second = first == server ? client : server;
        SendWorkRequest wf = first == server ? ws : wc, w2 = first == server ? wc : ws;
        int depth = latRecvDepth(iters);
        if (op == WrOpcode.SEND) {
            client.postRecvs(depth);
            server.postRecvs(depth);
        }
        long lastPost = 0;
        for (int n = 1; n <= iters; n++) {
            long now = System.nanoTime();
            if (n > 1) h.recordValue(Math.max(1, (now - lastPost) / 2));
            lastPost = now;
            post(first, wf, op, size, n);
            awaitSendCompletion(first, n);
            await(second, op, size, n, depth, iters);
            post(second, w2, op, size, n);
            awaitSendCompletion(second, n);
            await(first, op, size, n, depth, iters);
        }
        return h;
    }

    /** The n-th message of a ping-pong: signaled, INLINE when small; a WRITE's last byte is (byte) n. */
    private static void post(PerfSide s, SendWorkRequest wr, WrOpcode op, int size, int n) {
        int flags = SendFlags.SIGNALED | (size <= LAT_INLINE ? SendFlags.INLINE : 0);
        if (op == WrOpcode.SEND) {
            s.qp.postSend(s.send(wr, size).wrId(n).flags(flags));
        } else {
            s.buf.segment().set(java.lang.foreign.ValueLayout.JAVA_BYTE, size - 1, (byte) n);
            s.qp.postSend(wr.reset().wrId(n).opcode(op).flags(flags).addSge(s.buf, 0, size)
                    .remote(s.remoteTarget(), s.remoteRkey));
        }
    }

    /** Waits for the peer's n-th message: the WRITE's last byte, or a receive (reposted per perftest's rule). */
    private static void await(PerfSide s, WrOpcode op, int size, int n, int depth, int iters) {
        s.beginWait();
        byte tag = (byte) n;
        while (true) {
            s.progress();
            if (op == WrOpcode.RDMA_WRITE) {
                if (s.recvByte(size - 1) == tag) return;
                drain(s);
                s.stalledInWait("the peer's WRITE ", n);
                continue;
            }
            boolean got = s.stashedRecvs > 0;
            if (got) {
                s.stashedRecvs--;
            } else if (s.cq.poll(s.wcs, 1) == 1) {
                WorkCompletion wc = s.wcs[0];
                s.check(wc);
                got = wc.opcode == WcOpcode.RECV;
            }
            if (got) {
                s.recvsPosted--;
                if (n + depth <= iters) s.postRecvs(s.recvsPosted + 1);
                return;
            } else {
                s.stalledInWait("the peer's message ", n);
            }
        }
    }

    /** Waits for the completion of this side's n-th request (perftest polls the send CQ right after each post). */
    private static void awaitSendCompletion(PerfSide s, int n) {
        s.beginWait();
        while (true) {
            s.progress();
            int k = s.cq.poll(s.wcs, 1);
            if (k == 1) {
                WorkCompletion wc = s.wcs[0];
                s.check(wc);
                if (wc.opcode != WcOpcode.RECV && wc.wrId == n) return;
                // one CQ serves both queues here (perftest has two): the peer's answer may overtake our ACK
                if (wc.opcode == WcOpcode.RECV) s.stashedRecvs++;
            } else {
                s.stalledInWait("the completion of message ", n);
            }
        }
    }

    /** Reaps completions (errors included) without waiting. */
    private static void drain(PerfSide s) {
        int k = s.cq.poll(s.wcs);
        for (int j = 0; j < k; j++) s.check(s.wcs[j]);
    }

    /**
     * Client of read-lat/atomic-lat: one request at a time, the full round trip recorded (perftest's rtt_factor
     * is 1 for READ and atomics). Each atomic's returned value is checked: the n-th finds base + n. No READ comes
     * before the first atomic (ib_atomic_lat grants its QP remote atomic access only): the first result gives the
     * base. FETCH_AND_ADD: base is what the first one found. CMP_AND_SWAP: the first compares with 0; found 0, it
     * swapped in 1 (base 0), found v, it swapped nothing and the next compares with v (base v - 1).
     */
    static Histogram roundTrip(PerfSide s, WrOpcode op, int size, int iters) {
        Histogram h = s.latencies();
        SendWorkRequest wr = new SendWorkRequest();
        long base = 0;
        for (int i = 0; i < iters; i++) {
            long t0 = System.nanoTime();
            s.postAndWait(prepare(s, wr, op, size, i, base).wrId(i), "the completion of request ");
            h.recordValue(Math.max(1, System.nanoTime() - t0));
            if (op.isAtomic() && i == 0) {
                long found = s.recvLong(0);
                base = op == WrOpcode.ATOMIC_CMP_AND_SWP && found != 0 ? found - 1 : found;
                continue;
            }
            if (op.isAtomic() && s.recvLong(0) != base + i) {
                throw new NetPerf.CompletionError("atomic check FAILED: operation " + i + " returned " + s.recvLong(0)
                        + ", expected " + (base + i));
            }
        }
        return h;
    }
}
