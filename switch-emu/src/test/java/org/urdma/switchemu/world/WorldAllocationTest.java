package org.urdma.switchemu.world;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.management.ManagementFactory;
import org.junit.jupiter.api.Test;
import org.urdma.switchemu.core.ClassifyMode;
import org.urdma.switchemu.core.PortConfig;
import org.urdma.switchemu.core.SwitchConfig;
import org.urdma.transport.impair.ImpairmentConfig;
import org.urdma.transport.driver.MemoryFabric;
import org.urdma.transport.engine.DeviceConfig;
import org.urdma.transport.rate.RateControl;
import org.urdma.transport.recovery.LossRecovery;
import org.urdma.verbs.PathMtu;
import org.urdma.verbs.QpType;

/**
 * The simulated world's hot path allocates nothing in steady state: events, frames through the pool, the engines
 * (WRITE, READ, SEND to one sink: its ACKs and NAKs between its READ responses; CE marks, CNPs, DCQCN pacing), the
 * switch (ECN, PFC in and out), a lossy impaired wire (retransmissions), and a periodic sampling task.
 */
class WorldAllocationTest {
    @Test
    void steadyStateAllocatesNothingPerEvent() {
        long rate = 10_000_000_000L;
        try (World w = new World(5, 1_000_000)) {
            SwitchConfig sc = new SwitchConfig().bufferBytes(300_000).reserveBytes(1_500);
            for (int i = 0; i < 4; i++) {
                sc.port(new PortConfig().mac(0x02_00_00_00_C0_00L + i).rateBps(rate).classify(ClassifyMode.DEFAULT)
                        .defaultPriority(3).pfcMask(1 << 3).headroomBytes(50_000).ecn(1 << 3, 5_000, 100_000, 0.2));
            }
            SwitchNode s = w.addSwitch("s", sc);
            DeviceHost sink = w.addDevice(DeviceConfig.named("sink", 1), 1024, 3);
            w.connect(sink, s, 3, rate, 1_000, null, ImpairmentConfig.none().lossRandom(0.0001, 0));
            MessageWorkload.Op[] ops = {MessageWorkload.Op.WRITE, MessageWorkload.Op.READ, MessageWorkload.Op.SEND};
            MessageWorkload[] flows = new MessageWorkload[3];
            for (int i = 0; i < 3; i++) {
                DeviceHost h = w.addDevice(DeviceConfig.named("h" + i, 0x10 + i), 1024, 3);
                w.connect(h, s, i, rate, 1_000, null, null);
                MessageWorkload m = new MessageWorkload(w, "m" + i, h, sink, ops[i], QpType.RC, 16 * 1024, 8, 0,
                        Long.MAX_VALUE - 1, LossRecovery.goBackN(), RateControl.named("dcqcn:line=10g,rpTimer=100"),
                        MemoryFabric.Connection.defaults().withMtu(PathMtu.MTU_1024).withTimeout(8).withRetryCnt(7), i);
                w.add(h, m, 1_000_000);
                flows[i] = m;
            }
            long[] sampled = {0};
            w.every(1_010_000, 10_000, () -> sampled[0] += s.core().queueBytes(3, 3));
            w.runUntil(30_000_000); // warm-up: heaps, pools and JIT at their high-water marks
            com.sun.management.ThreadMXBean mx = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
            long tid = Thread.currentThread().threadId();
            long events0 = w.events();
            long tx0 = s.core().counters(3).txFrames;
            long before = mx.getThreadAllocatedBytes(tid);
            w.runUntil(50_000_000);
            long allocated = mx.getThreadAllocatedBytes(tid) - before;
            long events = w.events() - events0;
            long frames = s.core().counters(3).txFrames - tx0;
            long cnps = sink.device().counters().get(org.urdma.transport.counters.Counter.CNP_SENT);
            String what = allocated + " bytes over " + events + " events, " + frames + " frames to the sink, " + cnps
                    + " CNPs, " + w.impairmentLost() + " lost, " + s.core().counters(0).pfcFramesTx + " PFC frames";
            System.out.println(what);
            assertTrue(events > 50_000 && frames > 10_000 && cnps > 0 && w.impairmentLost() > 0, "exercised: " + what);
            assertTrue(allocated < 4096, "allocated " + what);
            for (MessageWorkload m : flows) {
                FlowResult f = m.result();
                assertTrue(f.errors() == 0 && f.messages() > 1_000, "every flow ran to the end without errors: " + f);
            }
        }
    }
}
