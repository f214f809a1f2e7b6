package org.urdma.tools.perf;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.HdrHistogram.Histogram;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.urdma.transport.counters.Counter;
import org.urdma.transport.engine.SoftDevice;
import org.urdma.verbs.CompletionQueue;
import org.urdma.verbs.MemoryRegion;
import org.urdma.verbs.QueuePair;
import org.urdma.verbs.ReceiveWorkRequest;
import org.urdma.verbs.SendFlags;
import org.urdma.verbs.SendWorkRequest;
import org.urdma.verbs.WcOpcode;
import org.urdma.verbs.WcStatus;
import org.urdma.verbs.WorkCompletion;
import org.urdma.verbs.WrOpcode;

/**
 * urdma's latency loops against a line-by-line Java transcription of perftest 6.06's run_iter_lat_write,
 * run_iter_lat_send and run_iter_lat (perftest_resources.c) on the other end of an in-memory RC link, each side on
 * its own thread driving its own engine. A loop that waits where perftest posts (or the reverse), uses other byte
 * values, or posts a different number of receives stalls or fails its checks here.
 */
class PerftestLatLoopsTest {
    private static final long STALL = 10_000_000_000L;
    /** perftest inlines up to 220 (WRITE) / 236 (SEND) bytes; these QPs take at most 64. */
    private static final int INLINE = 64;

    /** A side whose thread drives its own device; meeting the peer is not needed (the loops are self-timed). */
    private static final class Side extends PerfSide {
        final SoftDevice device;

        Side(boolean server, QueuePair qp, CompletionQueue cq, MemoryRegion buf, int maxSize, SoftDevice device) {
            super(server, qp, cq, buf, maxSize, STALL);
            this.device = device;
        }

        @Override
        void progress() {
            device.doWork(System.nanoTime());
        }

        @Override
        void sync(String step) {
        }
    }

    /** Both ends, each pointing its WRITEs/READs at the other's receive region as perftest's exchange advertises it. */
    private static Side[] sides(PerfSession s, int size) {
        Side client = new Side(false, s.client, s.cqA, s.bufA, size, s.fabric.a);
        Side server = new Side(true, s.server, s.cqB, s.bufB, size, s.fabric.b);
        for (Side[] p : new Side[][] {{client, server}, {server, client}}) {
            p[0].remoteVaIsTarget = true;
            p[0].remoteVa = p[1].buf.address() + p[1].recvOffset;
            p[0].remoteRkey = p[1].buf.rkey();
        }
        for (Side x : new Side[] {client, server}) {
            x.buf.segment().fill((byte) 0); // ib_write_lat zeroes its buffer; the others are random
            x.buf.segment().asSlice(x.recvOffset + size, 64).fill((byte) 0xA5); // a guard after the target
        }
        return new Side[] {client, server};
    }

    private static PerfSession session(int size) {
        PerfOptions o = new PerfOptions();
        return new PerfSession(o, (int) PerfSide.bufferSize(size), 600);
    }

    private static WorkCompletion pollOne(Side p, String what) {
        WorkCompletion wc = p.wcs[0];
        long end = System.nanoTime() + STALL;
        while (p.cq.poll(p.wcs, 1) == 0) {
            p.progress();
            if (System.nanoTime() > end) throw new AssertionError("perftest side: no completion for " + what);
        }
        assertEquals(WcStatus.SUCCESS, wc.status, what);
        return wc;
    }

    /** run_iter_lat_write, ITERATIONS mode: poll_buf is the last byte of the advertised region, post_buf of the source. */
    private static void perftestWriteLat(Side p, int size, int iters) {
        SendWorkRequest wr = new SendWorkRequest().opcode(WrOpcode.RDMA_WRITE).addSge(p.buf, 0, size)
                .remote(p.remoteTarget(), p.remoteRkey).flags(SendFlags.SIGNALED | (size <= INLINE ? SendFlags.INLINE : 0));
        MemorySegment m = p.buf.segment();
        long pollBuf = p.recvOffset + size - 1, postBuf = size - 1;
        long scnt = 0, ccnt = 0, rcnt = 0;
        while (scnt < iters || ccnt < iters || rcnt < iters) {
            if (rcnt < iters && !(scnt < 1 && p.server)) {
                rcnt++;
                long end = System.nanoTime() + STALL;
                while (m.get(ValueLayout.JAVA_BYTE, pollBuf) != (byte) rcnt) {
                    p.progress();
                    if (System.nanoTime() > end) throw new AssertionError("perftest side: byte " + (byte) rcnt + " never came");
                }
            }
            if (scnt < iters) {
                m.set(ValueLayout.JAVA_BYTE, postBuf, (byte) ++scnt);
                p.qp.postSend(wr.wrId(scnt));
            }
            if (ccnt < iters) {
                assertEquals(WcOpcode.RDMA_WRITE, pollOne(p, "WRITE " + (ccnt + 1)).opcode);
                ccnt++;
            }
        }
        settle(p);
    }

    /** run_iter_lat_send (RC, cq_mod 1, rx_depth min(512, iters)); perftest has a send and a receive CQ, here one. */
    private static int perftestSendLat(Side p, int size, int iters) {
        int depth = Math.min(512, iters);
        ReceiveWorkRequest rwr = new ReceiveWorkRequest().wrId(0).addSge(p.buf, p.recvOffset, size);
        int posted = 0;
        for (int i = 0; i < depth; i++, posted++) p.qp.postRecv(rwr);
        SendWorkRequest wr = new SendWorkRequest().opcode(WrOpcode.SEND).addSge(p.buf, 0, size).wrId(1);
        long scnt = 0, rcnt = 0;
        int early = 0; // receive completions met while polling for a send completion
        while (scnt < iters || rcnt < iters) {
            if (rcnt < iters && !(scnt < 1 && !p.server)) {
                if (early > 0) {
                    early--;
                } else {
                    while (pollOne(p, "receive " + (rcnt + 1)).opcode != WcOpcode.RECV) {
                        throw new AssertionError("perftest side: a send completion where a receive was expected");
                    }
                }
                rcnt++;
                if (rcnt + depth <= iters) {
                    p.qp.postRecv(rwr);
                    posted++;
                }
            }
            if (scnt < iters) {
                scnt++;
                p.qp.postSend(wr.flags(SendFlags.SIGNALED | (size <= INLINE ? SendFlags.INLINE : 0)));
                WorkCompletion wc;
                while ((wc = pollOne(p, "SEND " + scnt)).opcode == WcOpcode.RECV) early++;
                assertEquals(WcOpcode.SEND, wc.opcode);
            }
        }
        settle(p);
        return posted;
    }

    /**
     * urdma's side after its loop, as the CLI's runner settles it: it still owes the ACK of the peer's last message
     * (ACKs leave one pass after the request), so its engine keeps running until the peer's loop has ended.
     */
    private static void settleUntil(Side urdma, CompletableFuture<?> peer) {
        long end = System.nanoTime() + STALL;
        while (!peer.isDone() && System.nanoTime() < end) urdma.progress();
    }

    /**
     * The engine ACKs a request one pass after it arrived (so a reply shares its send): keep passing a little after the
     * loop, as the kernel's rxe keeps acknowledging after perftest's loop ends, so urdma's last request completes.
     */
    private static void settle(Side p) {
        long end = System.nanoTime() + 200_000_000L;
        int idle = 0;
        while (idle < 1000 && System.nanoTime() < end) idle = p.device.doWork(System.nanoTime()) == 0 ? idle + 1 : 0;
    }

    @ParameterizedTest(name = "urdma server={0}, {1} bytes")
    @CsvSource({"true,64", "false,64", "true,5000", "false,1"})
    void writeLatRunsInLockstepWithPerftestsLoopPastTheByteWrap(boolean urdmaServer, int size) throws Exception {
        int iters = 300; // the byte perftest polls goes 1..255, 0, 1, ...
        try (PerfSession s = session(size)) {
            Side[] x = sides(s, size);
            Side urdma = urdmaServer ? x[1] : x[0], stock = urdmaServer ? x[0] : x[1];
            MemorySegment src = stock.buf.segment();
            for (int i = 0; i < size - 1; i++) src.set(ValueLayout.JAVA_BYTE, i, (byte) (i * 7 + 3));
            urdma.fillSendRegion(size);
            CompletableFuture<Void> peer = CompletableFuture.runAsync(() -> perftestWriteLat(stock, size, iters));
            Histogram h = PerfPatterns.pingPong(urdma, WrOpcode.RDMA_WRITE, size, iters);
            settleUntil(urdma, peer);
            peer.get(30, TimeUnit.SECONDS);
            assertEquals(iters - 1, h.getTotalCount(), "one value per interval between two posts");
            // what perftest left in urdma's receive region: its source bytes, the last one its count, nothing beyond
            MemorySegment got = urdma.buf.segment();
            assertEquals(-1, MemorySegment.mismatch(src, 0, size - 1, got, urdma.recvOffset, urdma.recvOffset + size - 1));
            assertEquals((byte) iters, got.get(ValueLayout.JAVA_BYTE, urdma.recvOffset + size - 1));
            for (int i = 0; i < 64; i++) assertEquals((byte) 0xA5, got.get(ValueLayout.JAVA_BYTE, urdma.recvOffset + size + i));
            // and what urdma left in perftest's: urdma's send region, the last byte the count
            MemorySegment theirs = stock.buf.segment();
            assertEquals(-1, MemorySegment.mismatch(got, 0, size - 1, theirs, stock.recvOffset, stock.recvOffset + size - 1));
            assertEquals((byte) iters, theirs.get(ValueLayout.JAVA_BYTE, stock.recvOffset + size - 1));
            assertEquals((byte) 0xA5, theirs.get(ValueLayout.JAVA_BYTE, stock.recvOffset + size));
        }
    }

    @ParameterizedTest(name = "urdma server={0}, {1} bytes, -n {2}")
    @CsvSource({"true,64,100", "false,64,100", "true,4096,600", "false,2,20"})
    void sendLatRunsInLockstepWithPerftestsLoopAndPostsExactlyNReceives(boolean urdmaServer, int size, int iters) throws Exception {
        try (PerfSession s = session(size)) {
            Side[] x = sides(s, size);
            Side urdma = urdmaServer ? x[1] : x[0], stock = urdmaServer ? x[0] : x[1];
            urdma.fillSendRegion(size);
            CompletableFuture<Integer> peer = CompletableFuture.supplyAsync(() -> perftestSendLat(stock, size, iters));
            Histogram h = PerfPatterns.pingPong(urdma, WrOpcode.SEND, size, iters);
            settleUntil(urdma, peer);
            assertEquals(iters, peer.get(30, TimeUnit.SECONDS), "perftest posts exactly -n receives");
            assertEquals(iters - 1, h.getTotalCount());
            assertEquals(0, urdma.recvsPosted, "urdma posted exactly -n receives too, all consumed");
            assertEquals(0, urdma.stashedRecvs);
            assertTrue(urdma.qp instanceof org.urdma.transport.engine.SoftQp q && q.stats().get(Counter.RCVD_RNR_ERR) == 0
                    && ((org.urdma.transport.engine.SoftQp) stock.qp).stats().get(Counter.RCVD_RNR_ERR) == 0, "no SEND found its peer without a receive");
            assertEquals(-1, MemorySegment.mismatch(urdma.buf.segment(), 0, size, stock.buf.segment(), stock.recvOffset,
                    stock.recvOffset + size), "the last SEND landed in perftest's receive buffer");
        }
    }

    @ParameterizedTest(name = "urdma server={0}")
    @CsvSource({"true", "false"})
    void aWarmUpRunsAheadOfTheMeasuredIterationsInTheSameLoopAndIsNotRecorded(boolean urdmaServer) throws Exception {
        int size = 64, warm = 150, iters = 120; // the peer's loop runs warm + iters, and the count byte goes past 255
        try (PerfSession s = session(size)) {
            Side[] x = sides(s, size);
            Side urdma = urdmaServer ? x[1] : x[0], stock = urdmaServer ? x[0] : x[1];
            urdma.fillSendRegion(size);
            CompletableFuture<Integer> peer = CompletableFuture.supplyAsync(() -> perftestSendLat(stock, size, warm + iters));
            Histogram h = PerfPatterns.pingPong(urdma, WrOpcode.SEND, size, iters, warm);
            settleUntil(urdma, peer);
            assertEquals(warm + iters, peer.get(30, TimeUnit.SECONDS), "one loop of warm-up and measured iterations");
            assertEquals(iters - 1, h.getTotalCount(), "only the measured intervals are recorded");
            assertEquals(0, urdma.recvsPosted, "every receive posted was consumed");
        }
        try (PerfSession s = session(size)) {
            Side[] x = sides(s, size);
            Side urdma = urdmaServer ? x[1] : x[0], stock = urdmaServer ? x[0] : x[1];
            CompletableFuture<Void> peer = CompletableFuture.runAsync(() -> perftestWriteLat(stock, size, warm + iters));
            Histogram h = PerfPatterns.pingPong(urdma, WrOpcode.RDMA_WRITE, size, iters, warm);
            settleUntil(urdma, peer);
            peer.get(30, TimeUnit.SECONDS);
            assertEquals(iters - 1, h.getTotalCount());
            assertEquals((byte) (warm + iters), urdma.buf.segment().get(ValueLayout.JAVA_BYTE, urdma.recvOffset + size - 1));
        }
    }

    @ParameterizedTest(name = "{0} bytes")
    @CsvSource({"2", "64", "10000"})
    void readLatClientReadsThePeersAdvertisedRegionOneAtATime(int size) throws Exception {
        try (PerfSession s = session(size)) {
            Side[] x = sides(s, size);
            Side urdma = x[0], stock = x[1];
            MemorySegment adv = stock.buf.segment().asSlice(stock.recvOffset, size);
            for (int i = 0; i < size; i++) adv.set(ValueLayout.JAVA_BYTE, i, (byte) (i * 13 + 1));
            // ib_read_lat's server does nothing during the run: its engine answers
            java.util.concurrent.atomic.AtomicBoolean done = new java.util.concurrent.atomic.AtomicBoolean();
            CompletableFuture<Void> peer = CompletableFuture.runAsync(() -> {
                while (!done.get()) stock.progress();
            });
            Histogram h;
            try {
                h = PerfPatterns.roundTrip(urdma, WrOpcode.RDMA_READ, size, 50);
            } finally {
                done.set(true);
            }
            peer.get(30, TimeUnit.SECONDS);
            assertEquals(50, h.getTotalCount());
            assertEquals(-1, MemorySegment.mismatch(adv, 0, size, urdma.buf.segment(), urdma.recvOffset, urdma.recvOffset + size));
        }
    }
    /**
     * ib_atomic_lat's server registers its buffer with remote atomic access only, so any READ is answered with an
     * Invalid Request NAK: the client's first request must be the atomic, its result the base of the checks. Both
     * types, from a target of 0 and of another value (a compare-and-swap with 0 then swaps nothing).
     */
    @ParameterizedTest(name = "{0} from {1}")
    @CsvSource({"ATOMIC_FETCH_AND_ADD,0", "ATOMIC_FETCH_AND_ADD,1000", "ATOMIC_CMP_AND_SWP,0", "ATOMIC_CMP_AND_SWP,1000"})
    void atomicLatClientSendsNoReadBeforeItsFirstAtomic(WrOpcode op, long start) throws Exception {
        try (PerfSession s = session(8)) {
            Side[] x = sides(s, 8);
            Side urdma = x[0], stock = x[1];
            MemorySegment target = java.lang.foreign.Arena.ofAuto().allocate(64, 64);
            target.set(ValueLayout.JAVA_LONG, 0, start);
            MemoryRegion atomicOnly = s.pdB.registerMemory(target, org.urdma.verbs.AccessFlags.LOCAL_WRITE
                    | org.urdma.verbs.AccessFlags.REMOTE_ATOMIC);
            urdma.remoteVa = atomicOnly.address();
            urdma.remoteRkey = atomicOnly.rkey();
            java.util.concurrent.atomic.AtomicBoolean done = new java.util.concurrent.atomic.AtomicBoolean();
            CompletableFuture<Void> peer = CompletableFuture.runAsync(() -> {
                while (!done.get()) stock.progress();
            });
            Histogram h;
            try {
                h = PerfPatterns.roundTrip(urdma, op, 8, 20);
            } finally {
                done.set(true);
            }
            peer.get(30, TimeUnit.SECONDS);
            assertEquals(20, h.getTotalCount());
            long end = op == WrOpcode.ATOMIC_FETCH_AND_ADD ? start + 20 : start == 0 ? 20 : start + 19;
            assertEquals(end, target.get(ValueLayout.JAVA_LONG, 0), "each atomic moved the target by one");
        }
    }
}
