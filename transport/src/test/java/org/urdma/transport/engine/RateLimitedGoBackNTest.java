package org.urdma.transport.engine;

import static org.junit.jupiter.api.Assertions.*;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.urdma.transport.counters.Counter;
import org.urdma.transport.driver.MemoryFabric;
import org.urdma.transport.impair.ImpairmentConfig;
import org.urdma.transport.link.MemoryLink;
import org.urdma.transport.rate.FixedRate;
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
 * A rate-limited RC QP under loss: go-back-N's rewinds leave at the QP's rate like first transmissions, never as a
 * line-rate burst of the window into the bottleneck (what the WAN scenario's go-back-N row met at the switch).
 */
class RateLimitedGoBackNTest {
    @Test
    void retransmissionsOfAGoBackNRewindArePacedAtTheQpsRate() {
        long rate = 1_000_000_000L;
        int burst = 4096; // four 1 KiB packets
        long packetNs = 1024 * 8; // 8.192 us per 1 KiB packet at 1 Gbit/s
        try (Rig r = new Rig(ImpairmentConfig.dropEvery(200), ImpairmentConfig.none(), LossRecovery.goBackN(),
                MemoryLink.Config.defaults().withLatency(100_000).withSlots(4096))) {
            MemoryFabric.Connection c = MemoryFabric.Connection.defaults().withMtu(PathMtu.MTU_1024);
            QueuePair a = r.pdA.createQp(MemoryFabric.init(QpType.RC, r.cqA, 256));
            QueuePair b = r.pdB.createQp(MemoryFabric.init(QpType.RC, r.cqB, 256));
            ((SoftQp) a).policies(LossRecovery.goBackN(), FixedRate.factory(rate, burst));
            MemoryFabric.bringUp(a, r.fabric.b, b.qpNum(), 7, 5, c);
            MemoryFabric.bringUp(b, r.fabric.a, a.qpNum(), 5, 7, c);
            List<Long> times = new ArrayList<>();
            r.fabric.linkA.tap((frame, offset, length, now) -> {
                int op = frame.getByte(offset + 42) & 0x1F;
                if (op >= 0x06 && op <= 0x0B) times.add(now);
            });
            MemoryRegion src = r.mrA(65536, AccessFlags.LOCAL_WRITE);
            MemoryRegion dst = r.mrB(65536, AccessFlags.ALL);
            for (int i = 0; i < 32; i++) {
                a.postSend(new SendWorkRequest().wrId(i).opcode(WrOpcode.RDMA_WRITE).flags(SendFlags.SIGNALED)
                        .addSge(src, 0, 65536).remote(dst.address(), dst.rkey()));
            }
            List<WorkCompletion> wcs = r.awaitA(32, 2_000_000_000L);
            for (WorkCompletion wc : wcs) assertEquals(WcStatus.SUCCESS, wc.status, wc.toString());
            long resent = ((SoftQp) a).stats().get(Counter.RETRANSMITTED_PKTS);
            // 200 us RTT: ~24 packets in flight at 1 Gbit/s, each loss rewinds them all
            assertTrue(resent > 8 * 20, "go-back-N resent " + resent + " packets");
            assertEquals(32 * 64 + resent, times.size(), "every data frame seen");
            // any run of k frames, first sends and resends alike, spans at least (k - burst) packet times
            int burstPackets = burst / 1024;
            for (int i = 0; i + 64 < times.size(); i += 8) {
                long span = times.get(i + 64) - times.get(i);
                assertTrue(span >= (64 - burstPackets) * packetNs, "frames " + i + ".." + (i + 64) + " in " + span + " ns");
            }
        }
    }
}
