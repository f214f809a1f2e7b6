package org.urdma.transport.driver;

import static org.junit.jupiter.api.Assertions.*;

import java.lang.foreign.Arena;
import java.lang.foreign.ValueLayout;
import org.junit.jupiter.api.Test;
import org.urdma.transport.engine.DeviceConfig;
import org.urdma.transport.impair.ImpairmentConfig;
import org.urdma.transport.link.MemoryLink;
import org.urdma.transport.wire.FramingKind;
import org.urdma.verbs.AccessFlags;
import org.urdma.verbs.CompletionChannel;
import org.urdma.verbs.CompletionQueue;
import org.urdma.verbs.MemoryRegion;
import org.urdma.verbs.ProtectionDomain;
import org.urdma.verbs.QpType;
import org.urdma.verbs.QueuePair;
import org.urdma.verbs.ReceiveWorkRequest;
import org.urdma.verbs.SendFlags;
import org.urdma.verbs.SendWorkRequest;
import org.urdma.verbs.WcStatus;
import org.urdma.verbs.WorkCompletion;
import org.urdma.verbs.WrOpcode;

/** Each device on its own agent thread; the test thread only posts into rings and polls completion rings. */
class RealTimeDriverTest {
    @Test
    void writesAndSendsCompleteAcrossThreadsWithLossAndTheBlockingChannelWakes() throws Exception {
        MemoryFabric f = new MemoryFabric(DeviceConfig.named("rt-a", 1), DeviceConfig.named("rt-b", 2),
                MemoryLink.Config.defaults().withLatency(0), MemoryFabric.CodecFactory.wire(FramingKind.ROCE2),
                ImpairmentConfig.random(0.001, 0, 0, 7), ImpairmentConfig.none(), 1, System.nanoTime());
        try (Arena arena = Arena.ofShared();
             RealTimeDriver da = new RealTimeDriver(f.a, RealTimeDriver.Idle.BACKOFF);
             RealTimeDriver db = new RealTimeDriver(f.b, RealTimeDriver.Idle.BACKOFF)) {
            ProtectionDomain pa = f.a.allocPd(), pb = f.b.allocPd();
            CompletionQueue ca = f.a.createCq(256, null);
            CompletionChannel ch = f.b.createCompletionChannel();
            CompletionQueue cb = f.b.createCq(256, ch);
            // connection setup runs through the control queues of the running agents; ACK timeout 67 ms: seven retries
            // outlast a peer's agent descheduled for half a second on a crowded machine (at 4 ms, 34 ms ended the run)
            QueuePair[] qp = f.connect(pa, MemoryFabric.init(QpType.RC, ca, 128), pb, MemoryFabric.init(QpType.RC, cb, 128),
                    MemoryFabric.Connection.defaults().withTimeout(14), 0, 0);
            int size = 1 << 20;
            MemoryRegion src = pa.registerMemory(arena.allocate(size, 64), AccessFlags.LOCAL_WRITE);
            MemoryRegion dst = pb.registerMemory(arena.allocate(size, 64), AccessFlags.ALL);
            for (int i = 0; i < size; i += 8) src.segment().set(ValueLayout.JAVA_LONG, i, i * 0x9E3779B97F4A7C15L);
            WorkCompletion[] wcs = new WorkCompletion[16];
            for (int i = 0; i < wcs.length; i++) wcs[i] = new WorkCompletion();
            SendWorkRequest wr = new SendWorkRequest();
            int n = 64;
            for (int i = 0; i < n; i++) {
                qp[0].postSend(wr.reset().wrId(i).opcode(WrOpcode.RDMA_WRITE).flags(SendFlags.SIGNALED)
                        .addSge(src, (long) i * (size / n), size / n).remote(dst.address() + (long) i * (size / n), dst.rkey()));
            }
            int done = 0;
            long deadline = System.nanoTime() + 20_000_000_000L;
            while (done < n && System.nanoTime() < deadline) {
                int k = ca.poll(wcs);
                for (int i = 0; i < k; i++) assertEquals(WcStatus.SUCCESS, wcs[i].status, wcs[i].toString());
                done += k;
                if (k == 0) Thread.onSpinWait();
            }
            assertEquals(n, done);
            assertEquals(-1, src.segment().mismatch(dst.segment()));

            cb.requestNotify(false);
            MemoryRegion inbox = pb.registerMemory(arena.allocate(64, 64), AccessFlags.LOCAL_WRITE);
            qp[1].postRecv(new ReceiveWorkRequest().wrId(500).addSge(inbox, 0, 64));
            qp[0].postSend(wr.reset().wrId(99).opcode(WrOpcode.SEND).addSge(src, 0, 64));
            assertSame(cb, ch.await(10_000_000_000L), "the blocked thread is woken by the engine thread");
            assertEquals(1, cb.poll(wcs));
            assertEquals(500, wcs[0].wrId);
            assertEquals(WcStatus.SUCCESS, wcs[0].status);
        }
    }
}
