package org.urdma.bench.perf;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import picocli.CommandLine.Command;

/**
 * {@code urdma perf write-bw}: ib_write_bw. Keeps tx-depth RDMA WRITEs in flight, every 100th signaled
 * (perftest's CQ moderation), and reports peak/average bandwidth and message rate. Beside it, over the memory
 * link, the same bytes copied by one thread with {@code MemorySegment.copy} — the ceiling a software NIC is
 * measured against.
 */
@Command(name = "write-bw", mixinStandardHelpOptions = true, description = "RDMA WRITE bandwidth (ib_write_bw); RC or UC")
public final class WriteBwCommand extends PerfTestCommand {
    public WriteBwCommand() {
        super(PerfTest.WRITE_BW);
    }

    /** Single-thread MemorySegment.copy of the same bytes (same size, same count), in bytes/s. */
    static double copyBandwidth(int size, int iters) {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment src = a.allocate(size, 4096), dst = a.allocate(size, 4096);
            src.fill((byte) 1);
            for (int i = 0; i < Math.max(100, iters / 4); i++) MemorySegment.copy(src, 0, dst, 0, size);
            long t = System.nanoTime();
            for (int i = 0; i < iters; i++) MemorySegment.copy(src, 0, dst, 0, size);
            long el = System.nanoTime() - t;
            return (double) iters * size * 1e9 / el;
        }
    }
}
