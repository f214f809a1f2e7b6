package org.urdma.tools.perf;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import org.HdrHistogram.Histogram;
import org.urdma.verbs.AddressHandle;
import org.urdma.verbs.CompletionQueue;
import org.urdma.verbs.MemoryRegion;
import org.urdma.verbs.QpType;
import org.urdma.verbs.QueuePair;
import org.urdma.verbs.ReceiveWorkRequest;
import org.urdma.verbs.SendFlags;
import org.urdma.verbs.SendWorkRequest;
import org.urdma.verbs.WcStatus;
import org.urdma.verbs.WorkCompletion;
import org.urdma.verbs.WrOpcode;

/**
 * One side of a perftest run as the test loops see it, whichever link carries it: its QP, CQ and buffer, the
 * peer's buffer (or address handle for UD), how to advance its engine and how to meet the peer between phases.
 * <p>
 * The buffer has two regions, the same on both sides: a send region at 0 (filled with {@link #pattern}) and a
 * receive region at {@link #recvOffset} (WRITE target, SEND receive buffers, READ/atomic results) that a side
 * clears before each phase and checks after it.
 */
abstract class PerfSide {
    static final int QKEY = 0x11111111;
    static final int GRH = 40;

    final boolean server;
    final QueuePair qp;
    final CompletionQueue cq;
    final MemoryRegion buf;
    final long recvOffset;
    final int recvLength;
    final long stallNanos;
    long remoteVa;
    /**
     * Whether {@link #remoteVa} already is the peer's target (perftest's exchange: the peer advertises the half of its
     * buffer that WRITEs land in and READs read), rather than its buffer's base with our layout (urdma's exchange).
     */
    boolean remoteVaIsTarget;
    int remoteRkey;
    AddressHandle ah;
    int remoteQpn;
    int recvsPosted;
    /** Receive completions polled while waiting for a send completion (one CQ serves both queues), not yet taken. */
    int stashedRecvs;
    final ReceiveWorkRequest recv = new ReceiveWorkRequest();
    final WorkCompletion[] wcs = new WorkCompletion[16];

    PerfSide(boolean server, QueuePair qp, CompletionQueue cq, MemoryRegion buf, int maxSize, long stallNanos) {
        this.server = server;
        this.qp = qp;
        this.cq = cq;
        this.buf = buf;
        this.recvOffset = layout(maxSize);
        this.recvLength = maxSize + GRH;
        this.stallNanos = stallNanos;
        for (int i = 0; i < wcs.length; i++) wcs[i] = new WorkCompletion();
        recv.addSge(buf, recvOffset, recvLength);
    }

    private Histogram latencies;

    /**
     * This side's latency histogram, emptied: one per run rather than one per phase (3 digits up to an hour is ~270 KB).
     * The previous phase's values are gone, so a phase's result is read before the next phase of this side starts.
     */
    Histogram latencies() {
        if (latencies == null) latencies = new Histogram(3_600_000_000_000L, 3);
        else latencies.reset();
        return latencies;
    }

    /** Offset of the receive region for messages up to {@code maxSize} bytes. */
    static long layout(int maxSize) {
        return (Math.max(maxSize, 64) + 4095L) & ~4095L;
    }

    /** Bytes of buffer each side registers. */
    static long bufferSize(int maxSize) {
        return layout(maxSize) + maxSize + GRH + 64;
    }

    /** One engine pass when this thread drives the engine. */
    abstract void progress();

    /** Nothing completed since {@code since}: spin once (a side on a real link may block in its link instead). */
    void idle(long since) {
        Thread.onSpinWait();
    }

    /** Waits until the peer reaches the same step (an out-of-band barrier). */
    abstract void sync(String step);

    /** Lets the engine send what it still holds (final frames, ACKs) before the side stops driving it. */
    void settle() {
    }

    boolean ud() {
        return qp.type() == QpType.UD;
    }

    /** The deterministic pattern the sender's region holds and the receiver checks (remote memory verification). */
    static long pattern(long i) {
        return i * 0x9E3779B97F4A7C15L + 0x1234567;
    }

    /** Writes the pattern into the first {@code bytes} of the send region, to the last byte; both sides alike. */
    void fillSendRegion(long bytes) {
        MemorySegment s = buf.segment();
        long i = 0;
        for (; i + 8 <= bytes; i += 8) s.set(ValueLayout.JAVA_LONG, i, pattern(i));
        for (long p = pattern(i); i < bytes; i++, p >>>= 8) s.set(ValueLayout.JAVA_BYTE, i, (byte) p);
    }

    void clearRecvRegion() {
        buf.segment().asSlice(recvOffset, recvLength).fill((byte) 0);
    }

    /**
     * Offset of the first byte of the receive region (from {@code skip}) that differs from the pattern, or -1. The
     * peer sent its send region, which holds the same pattern as this side's.
     */
    long verifyRecvRegion(long skip, long bytes) {
        MemorySegment s = buf.segment();
        return MemorySegment.mismatch(s, 0, bytes, s, recvOffset + skip, recvOffset + skip + bytes);
    }

    /** Where this side's WRITEs land at the peer: its receive region. */
    long remoteTarget() {
        return remoteVaIsTarget ? remoteVa : remoteVa + recvOffset;
    }

    long recvLong(long at) {
        return buf.segment().get(ValueLayout.JAVA_LONG_UNALIGNED, recvOffset + at);
    }

    byte recvByte(long at) {
        return buf.segment().get(ValueLayout.JAVA_BYTE, recvOffset + at);
    }

    /** Keeps {@code depth} receives posted on the receive region. */
    void postRecvs(int depth) {
        while (recvsPosted < depth) {
            qp.postRecv(recv);
            recvsPosted++;
        }
    }

    /** A SEND of the send region's first {@code size} bytes, addressed for UD. */
    SendWorkRequest send(SendWorkRequest wr, int size) {
        wr.reset().opcode(WrOpcode.SEND).addSge(buf, 0, size);
        if (ud()) wr.ud(ah, remoteQpn, QKEY);
        return wr;
    }

    /** Posts one signaled request and waits for its completion (other completions are passed over). */
    void postAndWait(SendWorkRequest wr, String what) {
        long id = wr.wrId();
        qp.postSend(wr.flags(wr.flags() | SendFlags.SIGNALED));
        long last = System.nanoTime();
        while (true) {
            progress();
            int n = cq.poll(wcs);
            for (int i = 0; i < n; i++) {
                check(wcs[i]);
                if (wcs[i].wrId == id && wcs[i].opcode == wr.opcode().completion()) return;
            }
            if (n == 0) stalled(last, what, id);
        }
    }

    /** Reads 8 bytes of the peer's receive region into this side's receive region at 8 (atomic checks). */
    long readRemoteLong() {
        postAndWait(new SendWorkRequest().wrId(-2).opcode(WrOpcode.RDMA_READ).addSge(buf, recvOffset + 8, 8)
                .remote(remoteTarget(), remoteRkey), "the READ of the atomic target");
        return recvLong(8);
    }

    /** Throws on an error completion, after collecting the flushed rest. */
    private int emptyPolls;

    void check(WorkCompletion wc) {
        if (wc.status != WcStatus.SUCCESS) throw failed(wc);
    }

    /** When the wait in progress first found nothing (0: not yet), for {@link #stalledInWait}. */
    private long waitStart;

    /**
     * A latency loop's wait begins: its clock starts at its first empty poll, not here. Most waits of a ping-pong find
     * their completion at once, and a clock read costs ~20 ns on this kind of VM, twice per hop (perftest reads none).
     */
    void beginWait() {
        waitStart = 0;
    }

    /** {@link #stalled} for the wait begun with {@link #beginWait}. */
    void stalledInWait(String what, long n) {
        if (waitStart == 0) waitStart = System.nanoTime();
        stalled(waitStart, what, n);
    }

    /** Waits a little (spins once); past the stall limit throws, naming {@code what} (and {@code n} when &gt;= 0): no string is built before. */
    void stalled(long since, String what, long n) {
        idle(since);
        // the clock only every 64th empty poll: the limit is seconds, and a wait loop's pass is on the critical path
        if ((++emptyPolls & 63) == 0 && System.nanoTime() - since > stallNanos) {
            throw new NetPerf.CompletionError("no progress for " + stallNanos / 1_000_000_000 + " s waiting for " + what
                    + (n >= 0 ? String.valueOf(n) : "") + stallHint());
        }
    }

    /** Why the peer may be silent, for the stall message: an RC peer that stopped acknowledging, or a mismatched run. */
    String stallHint() {
        return NetPerf.stallHint(qp);
    }

    NetPerf.CompletionError failed(WorkCompletion first) {
        String what = "completion with error " + first.status + " (vendor err " + first.vendorErr + ") on wr_id " + first.wrId
                + " (" + first.opcode + ")" + (first.status == WcStatus.RETRY_EXC_ERR
                ? RetryExhaustion.of(qp) : "");
        WorkCompletion[] rest = {new WorkCompletion(), new WorkCompletion(), new WorkCompletion(), new WorkCompletion()};
        long flushed = 0;
        long end = System.nanoTime() + 2_000_000_000L;
        while (System.nanoTime() < end) {
            progress();
            int k = cq.poll(rest);
            for (int i = 0; i < k; i++) if (rest[i].status == WcStatus.WR_FLUSH_ERR) flushed++;
            if (k == 0) {
                if (flushed > 0) break;
                Thread.onSpinWait();
            }
        }
        return new NetPerf.CompletionError(what + "; then " + flushed + " requests flushed (WR_FLUSH_ERR)");
    }
}
