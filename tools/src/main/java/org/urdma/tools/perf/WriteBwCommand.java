package org.urdma.tools.perf;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import picocli.CommandLine.Command;

/**
 * {@code urdma perf write-bw}: ib_write_bw. Keeps tx-depth RDMA WRITEs in flight, every 100th signaled
 * (perftest's CQ moderation), and reports peak/average bandwidth and message rate. Beside it, over the memory
 * link, the same bytes copied by one thread with {@code MemorySegment.copy} — the ceiling a software NIC is
 * measured against.
 */
@Command(name = "write-bw", mixinStandardHelpOptions = true, description = "RDMA WRITE bandwidth (ib_write_bw); RC or UC.")
public final class WriteBwCommand extends PerfTestCommand {
    public WriteBwCommand() {
        super(PerfTest.WRITE_BW);
    }

    /** How long the copy runs before it is timed, and each timed window: the best window is the ceiling. */
    static final long COPY_WARMUP_NANOS = 20_000_000, COPY_WINDOW_NANOS = 20_000_000;
    static final int COPY_WINDOWS = 5;

    /**
     * Single-thread MemorySegment.copy of {@code size} bytes between two buffers, in bytes/s: the best of
     * {@link #COPY_WINDOWS} windows of 20 ms after 20 ms of warm-up. By time, not by the run's message count: 5000 copies
     * of 64 KiB last 8 ms, and their rate varied from 26 to 49 GB/s between runs here; the best window is the copy's
     * ceiling, so a noisy moment cannot flatter the ratio beside it.
     */
    static double copyBandwidth(int size) {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment src = a.allocate(size, 4096), dst = a.allocate(size, 4096);
            src.fill((byte) 1);
            copyFor(src, dst, COPY_WARMUP_NANOS);
            double best = 0;
            for (int w = 0; w < COPY_WINDOWS; w++) {
                best = Math.max(best, copyFor(src, dst, COPY_WINDOW_NANOS));
            }
            return best;
        }
    }

    /** Copies {@code src} to {@code dst} over and over for about {@code nanos}; bytes/s. */
    private static double copyFor(MemorySegment src, MemorySegment dst, long nanos) {
        long size = src.byteSize(), copies = 0, start = System.nanoTime(), elapsed;
        do {
            for (int i = 0; i < 16; i++) {
                MemorySegment.copy(src, 0, dst, 0, size);
            }
            copies += 16;
            elapsed = System.nanoTime() - start;
        } while (elapsed < nanos);
        return (double) copies * size * 1e9 / elapsed;
    }
}
