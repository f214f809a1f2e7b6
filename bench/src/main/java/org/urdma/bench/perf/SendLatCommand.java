package org.urdma.bench.perf;

import java.io.PrintStream;
import java.util.concurrent.Callable;
import org.HdrHistogram.Histogram;
import org.urdma.verbs.ReceiveWorkRequest;
import org.urdma.verbs.SendWorkRequest;
import org.urdma.verbs.WcStatus;
import org.urdma.verbs.WorkCompletion;
import org.urdma.verbs.WrOpcode;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;

/**
 * {@code urdma perf send-lat}: ib_send_lat. Ping-pong of SENDs between client and server; each half round
 * trip goes into an HdrHistogram; prints perftest's columns (min, max, typical = median, avg, stdev, 99%, 99.9%).
 */
@Command(name = "send-lat", mixinStandardHelpOptions = true, description = "SEND ping-pong latency (ib_send_lat)")
public final class SendLatCommand implements Callable<Integer> {
    @Mixin
    PerfOptions o = new PerfOptions();

    @Mixin
    NetOptions net = new NetOptions();

    @Override
    public Integer call() {
        if (NetOptions.isNetwork(o)) return NetPerf.sendLat(o, net, System.out); // two processes over a real link
        PrintStream out = System.out;
        int[] sizes = PerfCommand.sizes(o, 2);
        int iters = o.iters > 0 ? o.iters : 1000;
        int maxSize = sizes[sizes.length - 1];
        try (PerfSession s = new PerfSession(o, maxSize, 16)) {
            PerfCommand.header(out, "Send Latency Test", o, s);
            out.printf(" #bytes #iterations    t_min[usec]    t_max[usec]  t_typical[usec]    t_avg[usec]    t_stdev[usec]   99%% percentile[usec]   99.9%% percentile[usec]%n");
            for (int size : sizes) {
                run(s, size, Math.max(100, iters / 2)); // warm-up
                Histogram h = run(s, size, iters);
                out.printf(" %-7d %-10d     %-14.2f %-12.2f %-18.2f %-14.2f %-15.2f %-22.2f %.2f%n", size, iters,
                        h.getMinValue() / 1000.0, h.getMaxValue() / 1000.0, h.getValueAtPercentile(50) / 1000.0,
                        h.getMean() / 1000.0, h.getStdDeviation() / 1000.0, h.getValueAtPercentile(99) / 1000.0,
                        h.getValueAtPercentile(99.9) / 1000.0);
            }
            out.println(PerfCommand.LINE);
        }
        return 0;
    }

    /** One-way latency (half the round trip) of {@code iters} ping-pongs, in ns. */
    static Histogram run(PerfSession s, int size, int iters) {
        Histogram h = new Histogram(3_600_000_000_000L, 3);
        SendWorkRequest ping = new SendWorkRequest().opcode(WrOpcode.SEND).addSge(s.bufA, 0, size);
        SendWorkRequest pong = new SendWorkRequest().opcode(WrOpcode.SEND).addSge(s.bufB, 0, size);
        ReceiveWorkRequest recvA = new ReceiveWorkRequest().addSge(s.bufA, 0, size);
        ReceiveWorkRequest recvB = new ReceiveWorkRequest().addSge(s.bufB, 0, size);
        WorkCompletion[] wc = {new WorkCompletion(), new WorkCompletion(), new WorkCompletion(), new WorkCompletion()};
        s.server.postRecv(recvB);
        s.client.postRecv(recvA);
        for (int i = 0; i < iters; i++) {
            long t0 = System.nanoTime();
            s.client.postSend(ping.wrId(i).flags(i % 8 == 7 ? org.urdma.verbs.SendFlags.SIGNALED : 0));
            awaitRecv(s, s.cqB, wc);
            s.server.postRecv(recvB);
            s.server.postSend(pong.wrId(i).flags(i % 8 == 7 ? org.urdma.verbs.SendFlags.SIGNALED : 0));
            awaitRecv(s, s.cqA, wc);
            s.client.postRecv(recvA);
            h.recordValue(Math.max(1, (System.nanoTime() - t0) / 2));
        }
        // drain the outstanding receives and send completions so the next size starts clean
        return h;
    }

    private static void awaitRecv(PerfSession s, org.urdma.verbs.CompletionQueue cq, WorkCompletion[] wc) {
        while (true) {
            s.progress();
            int n = cq.poll(wc, 1);
            if (n == 1) {
                if (wc[0].status != WcStatus.SUCCESS) throw new IllegalStateException("send-lat: completion " + wc[0]);
                if (wc[0].opcode == org.urdma.verbs.WcOpcode.RECV) return;
            } else if (!s.inline()) {
                Thread.onSpinWait();
            }
        }
    }
}
