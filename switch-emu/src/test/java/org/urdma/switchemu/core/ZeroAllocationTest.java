package org.urdma.switchemu.core;

import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import org.urdma.transport.wire.MacControlFrame;
import org.urdma.switchemu.sim.Frames;

import java.lang.management.ManagementFactory;
import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertTrue;

/** The switch data path allocates nothing in steady state (learning, flooding, ECN, PFC in and out). */
class ZeroAllocationTest {
    @Test
    void steadyStateForwardingAllocatesNothing() {
        SwitchConfig c = new SwitchConfig().bufferBytes(200_000).reserveBytes(1_000).watchdog(50_000, 50_000, WatchdogAction.DROP);
        for (int i = 0; i < 3; i++) {
            c.port(new PortConfig().mac(0x02_00_00_00_F0_00L + i).rateBps(10_000_000_000L).pfcMask(0x08)
                .ecn(0x09, 5_000, 50_000, 0.1).headroomBytes(20_000));
        }
        long[] sink = new long[1];
        SwitchCore core = new SwitchCore(c, (port, buffer, offset, length, start, end) -> sink[0] += length,
            new SplittableRandom(3));
        long a = 0x02_00_00_00_00_01L;
        long b = 0x02_00_00_00_00_02L;
        long unknown = 0x02_00_00_00_00_77L;
        UnsafeBuffer toB = new UnsafeBuffer(Frames.ipv4Udp(b, a, 3, 0, 0b10, 1000));
        UnsafeBuffer fromB = new UnsafeBuffer(Frames.ipv4Udp(a, b, 0, 0, 0b10, 1000));
        UnsafeBuffer flood = new UnsafeBuffer(Frames.ethernet(unknown, a, 0, 0x88B6, 200));
        byte[] xoff = new byte[60];
        byte[] xon = new byte[60];
        MacControlFrame.putPfc(new UnsafeBuffer(xoff), 0, 0x02_00_00_00_00_99L, 0x08, new int[]{0, 0, 0, 2000, 0, 0, 0, 0});
        MacControlFrame.putPfc(new UnsafeBuffer(xon), 0, 0x02_00_00_00_00_99L, 0x08, new int[8]);
        UnsafeBuffer xoffBuffer = new UnsafeBuffer(xoff);
        UnsafeBuffer xonBuffer = new UnsafeBuffer(xon);

        long[] now = {0};
        Runnable round = () -> {
            for (int i = 0; i < 1000; i++) {
                long t = now[0];
                core.onFrame(0, toB, 0, toB.capacity(), t);
                core.onFrame(2, toB, 0, toB.capacity(), t);
                if (i % 10 == 0) {
                    core.onFrame(1, fromB, 0, fromB.capacity(), t);
                    core.onFrame(0, flood, 0, flood.capacity(), t);
                }
                if (i % 100 == 0) {
                    core.onFrame(1, xoffBuffer, 0, 60, t);
                }
                if (i % 100 == 50) {
                    core.onFrame(1, xonBuffer, 0, 60, t);
                }
                core.poll(t);
                now[0] = t + 850;
                core.poll(now[0]);
            }
        };
        for (int i = 0; i < 20; i++) {
            round.run();
        }
        com.sun.management.ThreadMXBean mx = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        long tid = Thread.currentThread().threadId();
        long before = mx.getThreadAllocatedBytes(tid);
        for (int i = 0; i < 100; i++) {
            round.run();
        }
        long allocated = mx.getThreadAllocatedBytes(tid) - before;
        PortCounters out = core.counters(1);
        assertTrue(out.pfcTx[3] + core.counters(0).pfcTx[3] > 0 && out.ecnMarked > 0 && out.txFrames > 50_000,
            "the run exercised PFC, ECN and forwarding: " + out + " / " + core.counters(0));
        assertTrue(allocated < 1024, "allocated " + allocated + " bytes over 100k frames");
    }
}
