package org.urdma.transport.fec;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.lang.management.ManagementFactory;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import org.urdma.transport.rate.CongestionSignal;
import org.urdma.transport.rate.RateControl;
import org.urdma.transport.wire.Psn;

/** Once warm, DCQCN, RRCC and the P-FEC encoder and decoder allocate nothing per packet. */
class PolicyAllocationTest {
    interface Work {
        void run(int round);
    }

    /** Bytes this thread allocated in the best of several windows of {@code rounds} (the JIT settles in between). */
    static long allocated(Work w, int rounds) {
        var mx = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        long tid = Thread.currentThread().threadId();
        long best = Long.MAX_VALUE;
        int round = 0;
        for (int run = 0; run < 20 && best > 0; run++) {
            long before = mx.getThreadAllocatedBytes(tid);
            for (int i = 0; i < rounds; i++) w.run(round++);
            best = Math.min(best, mx.getThreadAllocatedBytes(tid) - before);
        }
        return best;
    }

    @Test
    void dcqcnAndRrccAllocateNothingPerPacketAckOrCnp() {
        RateControl d = RateControl.named("dcqcn:line=25g,byteCounter=100000").create();
        RateControl r = RateControl.named("rrcc").create();
        long[] now = {0};
        long bytes = allocated(round -> {
            for (int i = 0; i < 100; i++) {
                now[0] += 500;
                d.nextSendTime(now[0]);
                d.onSent(1024, now[0]);
                r.nextSendTime(now[0]);
                r.onSent(1024, now[0]);
                r.onAck(1024, 20_000 + (i & 7) * 100, now[0]);
            }
            d.onCongestion(CongestionSignal.CNP, now[0]);
            r.onLossRate((round & 15) == 0 ? 0.05 : 0.001, now[0]);
        }, 1_000);
        assertEquals(0, bytes);
    }

    @Test
    void theFecCodecsAllocateNothingPerPacket() {
        FecEncoder e = new FecEncoder(4096, 8);
        FecDecoder dec = new FecDecoder(4096, 8, 4);
        UnsafeBuffer data = new UnsafeBuffer(new byte[4096]);
        UnsafeBuffer eth = new UnsafeBuffer(new byte[8]);
        int m = 16;
        int r = 4;
        dec.expect(0, m, r);
        long[] rebuilt = {0};
        long[] groups = {0};
        long bytes = allocated(round -> {
            groups[0]++;
            int base = Psn.add(0, round * m);
            e.start(base, m, r);
            for (int i = 0; i < m; i++) {
                data.putInt(0, round * 1000 + i);
                int len = 1000 + (i * 37) % 3000;
                e.add(Psn.add(base, i), data, 0, len);
                if (i != round % m) dec.onData(Psn.add(base, i), data, 0, len); // one loss per group
            }
            for (int j = 0; j < r; j++) {
                e.putFecEth(eth, 0, j);
                if (dec.onParity(base, m, r, j, e.lengthXor(j), e.parity(j), 0, e.parityLength(j)) == FecDecoder.RECOVERED) {
                    rebuilt[0]++;
                }
            }
        }, 200);
        assertEquals(0, bytes);
        assertEquals(groups[0], rebuilt[0], "every group's loss rebuilt");
    }
}
