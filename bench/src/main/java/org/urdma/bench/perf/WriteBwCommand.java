package org.urdma.bench.perf;

import java.io.PrintStream;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.Callable;
import org.urdma.verbs.SendFlags;
import org.urdma.verbs.SendWorkRequest;
import org.urdma.verbs.WcStatus;
import org.urdma.verbs.WorkCompletion;
import org.urdma.verbs.WrOpcode;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Spec;

/**
 * {@code urdma perf write-bw}: ib_write_bw. Keeps tx-depth RDMA WRITEs in flight, every 100th signaled
 * (perftest's CQ moderation), and reports peak/average bandwidth and message rate. Beside it, the same
 * bytes copied by one thread with {@code MemorySegment.copy} — the ceiling a software NIC is measured against.
 */
@Command(name = "write-bw", mixinStandardHelpOptions = true, description = "RDMA WRITE bandwidth (ib_write_bw)")
public final class WriteBwCommand implements Callable<Integer> {
    static final int CQ_MODERATION = 100;

    @Mixin
    PerfOptions o = new PerfOptions();

    @Mixin
    NetOptions net = new NetOptions();

    @Spec
    picocli.CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() {
        if (NetOptions.isNetwork(o)) return NetPerf.writeBw(o, net, System.out); // two processes over a real link
        PrintStream out = spec.commandLine().getOut() == null ? System.out : new PrintStream(System.out);
        int[] sizes = PerfCommand.sizes(o, 65536);
        int iters = o.iters > 0 ? o.iters : 5000;
        int maxSize = sizes[sizes.length - 1];
        try (PerfSession s = new PerfSession(o, maxSize, o.txDepth)) {
            PerfCommand.header(out, "RDMA_Write BW Test", o, s);
            out.printf(" #bytes     #iterations    BW peak[%s]    BW average[%s]   MsgRate[Mpps]%n",
                    o.gbits ? "Gb/sec" : "MB/sec", o.gbits ? "Gb/sec" : "MB/sec");
            for (int size : sizes) {
                Result r = run(s, size, Math.min(iters, 1), o.txDepth); // warm-up of the code path
                r = run(s, size, warmupIters(size), o.txDepth);
                r = run(s, size, iters, o.txDepth);
                out.printf(" %-10d %-16d %-18.2f %-20.2f %.6f%n", size, iters, bw(r.peakBytesPerSec), bw(r.avgBytesPerSec), r.msgRate / 1e6);
                if (!o.noCopyBaseline) {
                    double copy = copyBandwidth(size, iters);
                    out.printf(" %-10s %-16s %-18s %-20.2f ratio urdma/copy = %.3f%n", "memcpy", "(1 thread)", "",
                            bw(copy), r.avgBytesPerSec / copy);
                }
            }
            out.println(PerfCommand.LINE);
            if (s.client instanceof org.urdma.transport.engine.SoftQp q) {
                out.printf(" packets sent %d, retransmitted %d, retry rounds %d, ACK timeouts %d%n", q.packetsSent(),
                        q.retransmittedPackets(), q.retries(), q.timeouts());
            }
            out.flush();
        }
        return 0;
    }

    private static int warmupIters(int size) {
        return (int) Math.max(100, Math.min(20_000, (256L << 20) / size));
    }

    private double bw(double bytesPerSec) {
        return o.gbits ? bytesPerSec * 8 / 1e9 : bytesPerSec / (1 << 20);
    }

    /** Like perftest: never signal less often than the depth, or the window would wait for a completion never asked for. */
    static int moderation(int depth) {
        return Math.max(1, Math.min(CQ_MODERATION, depth));
    }

    record Result(double avgBytesPerSec, double peakBytesPerSec, double msgRate) {}

    static Result run(PerfSession s, int size, int iters, int depth) {
        SendWorkRequest wr = new SendWorkRequest();
        WorkCompletion[] wcs = new WorkCompletion[16];
        for (int i = 0; i < wcs.length; i++) wcs[i] = new WorkCompletion();
        long posted = 0, completed = 0;
        long start = System.nanoTime();
        long peakWindowStart = start, peakWindowDone = 0;
        double peak = 0;
        int moderation = moderation(depth);
        while (completed < iters) {
            while (posted < iters && posted - completed < depth) {
                boolean signal = (posted + 1) % moderation == 0 || posted + 1 == iters;
                wr.reset().wrId(posted).opcode(WrOpcode.RDMA_WRITE).flags(signal ? SendFlags.SIGNALED : 0)
                        .addSge(s.bufA, 0, size).remote(s.bufB.address(), s.bufB.rkey());
                s.client.postSend(wr);
                posted++;
            }
            s.progress();
            int n = s.cqA.poll(wcs);
            for (int i = 0; i < n; i++) {
                if (wcs[i].status != WcStatus.SUCCESS) throw new IllegalStateException("write-bw: completion " + wcs[i]);
                long upTo = wcs[i].wrId + 1;
                long now = System.nanoTime();
                long bytes = (upTo - peakWindowDone) * (long) size;
                if (now > peakWindowStart) peak = Math.max(peak, bytes * 1e9 / (now - peakWindowStart));
                peakWindowStart = now;
                peakWindowDone = upTo;
                completed = upTo;
            }
        }
        long el = System.nanoTime() - start;
        double avg = (double) iters * size * 1e9 / el;
        return new Result(avg, Math.max(peak, avg), iters * 1e9 / el);
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
