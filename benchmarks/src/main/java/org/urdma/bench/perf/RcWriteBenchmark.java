package org.urdma.bench.perf;

import org.urdma.tools.perf.PerfOptions;
import org.urdma.tools.perf.PerfSession;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;
import org.urdma.verbs.SendFlags;
import org.urdma.verbs.SendWorkRequest;
import org.urdma.verbs.WcStatus;
import org.urdma.verbs.WorkCompletion;
import org.urdma.verbs.WrOpcode;

/**
 * RC WRITE of 64 KB (MTU 4096) over a MemoryLink, one thread driving both engines (inline driver), beside a
 * single-thread {@code MemorySegment.copy} of the same 64 KB in the same run: ops/s × 65536 = bytes/s for
 * both, so the ratio reads straight off the table. Run with {@code -prof gc} for the allocation per WRITE.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
public class RcWriteBenchmark {
    @Param({"65536"})
    int size;

    @Param({"roce2"})
    String framing;

    /** PAXI formats only: carry the optional ICRC. */
    @Param({"true"})
    boolean icrc;

    PerfSession s;
    final SendWorkRequest wr = new SendWorkRequest();
    final WorkCompletion[] wcs = new WorkCompletion[32];
    long posted, completed;
    static final int DEPTH = 32;
    Arena arena;
    MemorySegment copySrc, copyDst;

    @Setup(Level.Trial)
    public void setup() {
        PerfOptions o = new PerfOptions();
        o.framing = framing;
        o.paxiIcrc = icrc;
        o.mtu = 4096;
        s = new PerfSession(o, size, DEPTH * 2);
        for (int i = 0; i < wcs.length; i++) wcs[i] = new WorkCompletion();
        wr.opcode(WrOpcode.RDMA_WRITE).addSge(s.bufA, 0, size).remote(s.bufB.address(), s.bufB.rkey());
        arena = Arena.ofConfined();
        copySrc = arena.allocate(size, 4096);
        copyDst = arena.allocate(size, 4096);
        copySrc.fill((byte) 3);
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        s.close();
        arena.close();
    }

    /** One 64 KB RDMA WRITE completed per op (pipelined: up to 32 in flight, every 8th signaled). */
    @Benchmark
    public long rcWrite() {
        while (posted - completed >= DEPTH) {
            s.progress();
            int n = s.cqA.poll(wcs);
            for (int i = 0; i < n; i++) {
                if (wcs[i].status != WcStatus.SUCCESS) throw new IllegalStateException(wcs[i].toString());
                completed = wcs[i].wrId + 1;
            }
        }
        wr.wrId(posted).flags((posted & 7) == 7 ? SendFlags.SIGNALED : 0);
        s.client.postSend(wr);
        posted++;
        s.progress();
        return posted;
    }

    /** The same bytes copied once by one thread. */
    @Benchmark
    public MemorySegment memorySegmentCopy() {
        MemorySegment.copy(copySrc, 0, copyDst, 0, size);
        return copyDst;
    }
}
