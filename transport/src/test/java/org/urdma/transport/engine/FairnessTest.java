package org.urdma.transport.engine;

import static org.junit.jupiter.api.Assertions.*;

import java.util.Arrays;
import org.agrona.collections.Int2IntHashMap;
import org.junit.jupiter.api.Test;
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

/** Busy RC QPs sharing one link each get a fair share of it: round robin with a per-QP packet budget, none starves. */
class FairnessTest {
    static final long SECOND = 1_000_000_000L;
    static final int QPS = 256;
    static final int DEPTH = 8;
    static final int SIZE = 4096;

    @Test
    void twoHundredFiftySixBusyQpsEachGetWithinTenPercentOfTheFairShareOverFourSeconds() {
        // a 1 Gbit/s link is the bottleneck; 4 s of virtual time is ~120 000 WRITEs of one 4 KiB packet each
        MemoryLink.Config link = MemoryLink.Config.defaults().withGbps(1).withLatency(5_000);
        try (Rig r = new Rig(ImpairmentConfig.none(), ImpairmentConfig.none(), LossRecovery.goBackN(), link, 512)) {
            QueuePair[] senders = new QueuePair[QPS];
            Int2IntHashMap index = new Int2IntHashMap(-1);
            for (int i = 0; i < QPS; i++) {
                senders[i] = r.connect(QpType.RC, MemoryFabric.Connection.defaults().withMtu(PathMtu.MTU_4096), DEPTH)[0];
                index.put(senders[i].qpNum(), i);
            }
            MemoryRegion src = r.mrA(SIZE, AccessFlags.LOCAL_WRITE);
            MemoryRegion dst = r.mrB(SIZE, AccessFlags.ALL);
            SendWorkRequest wr = new SendWorkRequest();
            for (QueuePair qp : senders) {
                for (int k = 0; k < DEPTH; k++) post(qp, wr, src, dst);
            }
            long[] done = new long[QPS];
            WorkCompletion[] wcs = new WorkCompletion[256];
            for (int i = 0; i < wcs.length; i++) wcs[i] = new WorkCompletion();
            r.sim.runUntil(() -> {
                int n;
                while ((n = r.cqA.poll(wcs)) > 0) {
                    for (int i = 0; i < n; i++) {
                        assertEquals(WcStatus.SUCCESS, wcs[i].status, wcs[i].toString());
                        int q = index.get(wcs[i].qpNum);
                        done[q]++;
                        post(senders[q], wr, src, dst); // keep every SQ full
                    }
                }
                return false;
            }, 4 * SECOND);
            long total = Arrays.stream(done).sum();
            double fair = (double) total / QPS;
            long min = Arrays.stream(done).min().orElseThrow();
            long max = Arrays.stream(done).max().orElseThrow();
            System.out.printf("fairness: %d QPs, %d WRITEs of %d B in 4 s virtual (%.0f MB/s), per QP min %d max %d fair %.1f%n",
                    QPS, total, SIZE, total * (double) SIZE / 4e6, min, max, fair);
            assertTrue(total * SIZE >= 0.9 * 4 * 125e6, "the link was kept busy: " + total + " WRITEs");
            for (int i = 0; i < QPS; i++) {
                assertTrue(done[i] >= 0.9 * fair && done[i] <= 1.1 * fair,
                        "QP " + i + " completed " + done[i] + " WRITEs, fair share " + fair + " (min " + min + ", max " + max + ")");
            }
        }
    }

    private static void post(QueuePair qp, SendWorkRequest wr, MemoryRegion src, MemoryRegion dst) {
        qp.postSend(wr.reset().flags(SendFlags.SIGNALED).opcode(WrOpcode.RDMA_WRITE).addSge(src, 0, SIZE)
                .remote(dst.address(), dst.rkey()));
    }
}
