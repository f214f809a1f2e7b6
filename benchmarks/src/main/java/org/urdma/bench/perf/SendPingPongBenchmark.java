package org.urdma.bench.perf;

import org.urdma.tools.perf.PerfOptions;
import org.urdma.tools.perf.PerfSession;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;
import org.urdma.verbs.CompletionQueue;
import org.urdma.verbs.ReceiveWorkRequest;
import org.urdma.verbs.SendFlags;
import org.urdma.verbs.SendWorkRequest;
import org.urdma.verbs.WcOpcode;
import org.urdma.verbs.WcStatus;
import org.urdma.verbs.WorkCompletion;
import org.urdma.verbs.WrOpcode;

/** 8-byte RC SEND ping-pong (one round trip per op) over a MemoryLink, inline driver. {@code -prof gc} for B/op. */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
public class SendPingPongBenchmark {
    @org.openjdk.jmh.annotations.Param({"roce2"})
    String framing;

    /** PAXI formats only: carry the optional ICRC. */
    @org.openjdk.jmh.annotations.Param({"true"})
    boolean icrc;

    PerfSession s;
    SendWorkRequest ping, pong;
    ReceiveWorkRequest recvA, recvB;
    final WorkCompletion[] wc = {new WorkCompletion(), new WorkCompletion()};
    long i;

    @Setup(Level.Trial)
    public void setup() {
        PerfOptions o = new PerfOptions();
        o.framing = framing;
        o.paxiIcrc = icrc;
        s = new PerfSession(o, 4096, 64);
        ping = new SendWorkRequest().opcode(WrOpcode.SEND).addSge(s.bufA, 0, 8);
        pong = new SendWorkRequest().opcode(WrOpcode.SEND).addSge(s.bufB, 0, 8);
        recvA = new ReceiveWorkRequest().addSge(s.bufA, 64, 8);
        recvB = new ReceiveWorkRequest().addSge(s.bufB, 64, 8);
        s.server.postRecv(recvB);
        s.client.postRecv(recvA);
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        s.close();
    }

    @Benchmark
    public long roundTrip() {
        int f = (++i & 15) == 0 ? SendFlags.SIGNALED : 0;
        s.client.postSend(ping.flags(f));
        await(s.cqB);
        s.server.postRecv(recvB);
        s.server.postSend(pong.flags(f));
        await(s.cqA);
        s.client.postRecv(recvA);
        return i;
    }

    private void await(CompletionQueue cq) {
        while (true) {
            s.progress();
            if (cq.poll(wc, 1) == 1) {
                if (wc[0].status != WcStatus.SUCCESS) throw new IllegalStateException(wc[0].toString());
                if (wc[0].opcode == WcOpcode.RECV) return;
            }
        }
    }
}
