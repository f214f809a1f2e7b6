package org.urdma.transport.engine;

import static org.junit.jupiter.api.Assertions.*;

import org.junit.jupiter.api.Test;
import org.urdma.transport.counters.Counter;
import org.urdma.transport.driver.MemoryFabric;
import org.urdma.transport.impair.ImpairmentConfig;
import org.urdma.transport.link.MemoryLink;
import org.urdma.transport.recovery.LossRecovery;
import org.urdma.verbs.AccessFlags;
import org.urdma.verbs.MemoryRegion;
import org.urdma.verbs.PathMtu;
import org.urdma.verbs.QpType;
import org.urdma.verbs.QueuePair;
import org.urdma.verbs.SendFlags;
import org.urdma.verbs.SendWorkRequest;
import org.urdma.verbs.WcStatus;
import org.urdma.verbs.WorkCompletion;
import org.urdma.verbs.WrOpcode;

/**
 * Under 1 % random loss an RC WRITE stream with default settings (go-back-N, ACK timeout 14 = 67 ms) keeps at least
 * half its loss-free rate: the sender learns of losses from NAKs, not from the ACK timeout. Virtual time, deterministic.
 */
class LossThroughputTest {
    static final long MS = 1_000_000L;
    static final int SIZE = 64 << 10;
    static final int DEPTH = 128;
    static final int MESSAGES = 3_000;

    @Test
    void onePercentLossKeepsAtLeastHalfTheLossFreeWriteRate() {
        double clean = writeRate(ImpairmentConfig.none());
        double lossy = writeRate(ImpairmentConfig.random(0.01, 0, 0, 17));
        System.out.printf("write-bw under 1%% loss: %.0f MB/s, loss-free %.0f MB/s (%.0f %%)%n", lossy, clean, 100 * lossy / clean);
        assertTrue(lossy >= 0.5 * clean, "1% loss: " + lossy + " MB/s, loss-free " + clean + " MB/s");
    }

    /** MB/s of virtual time for {@link #MESSAGES} WRITEs of 64 KiB, {@link #DEPTH} outstanding, on a 25 Gbit/s link of 64 slots. */
    static double writeRate(ImpairmentConfig dataLoss) {
        MemoryLink.Config link = MemoryLink.Config.defaults().withGbps(25).withLatency(2_000).withSlots(64); // as urdma perf
        try (Rig r = new Rig(dataLoss, ImpairmentConfig.none(), LossRecovery.goBackN(), link, 512)) {
            QueuePair qp = r.connect(QpType.RC, MemoryFabric.Connection.defaults().withMtu(PathMtu.MTU_4096), DEPTH)[0];
            MemoryRegion src = r.mrA(SIZE, AccessFlags.LOCAL_WRITE);
            MemoryRegion dst = r.mrB(SIZE, AccessFlags.ALL);
            SendWorkRequest wr = new SendWorkRequest();
            WorkCompletion[] wcs = new WorkCompletion[64];
            for (int i = 0; i < wcs.length; i++) wcs[i] = new WorkCompletion();
            int[] posted = {0}, done = {0};
            Runnable post = () -> {
                qp.postSend(wr.reset().flags(SendFlags.SIGNALED).opcode(WrOpcode.RDMA_WRITE).addSge(src, 0, SIZE)
                        .remote(dst.address(), dst.rkey()));
                posted[0]++;
            };
            while (posted[0] < DEPTH) post.run();
            long t0 = r.sim.now();
            assertTrue(r.sim.runUntil(() -> {
                int n;
                while ((n = r.cqA.poll(wcs)) > 0) {
                    for (int i = 0; i < n; i++) {
                        assertEquals(WcStatus.SUCCESS, wcs[i].status, wcs[i].toString());
                        done[0]++;
                        if (posted[0] < MESSAGES) post.run();
                    }
                }
                return done[0] == MESSAGES;
            }, 600_000 * MS), "all WRITEs completed");
            SoftQp a = (SoftQp) qp;
            System.out.printf("  %s: %d retries (%d timeouts), %d resent, %.1f ms%n", dataLoss, a.stats().get(Counter.COMPLETER_RETRY_ERR), a.stats().get(Counter.ACK_TIMEOUTS),
                    a.stats().get(Counter.RETRANSMITTED_PKTS), (r.sim.now() - t0) / 1e6);
            return (double) MESSAGES * SIZE / ((r.sim.now() - t0) / 1e3);
        }
    }
}
