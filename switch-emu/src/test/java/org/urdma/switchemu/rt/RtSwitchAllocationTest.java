package org.urdma.switchemu.rt;

import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import org.urdma.switchemu.core.PortConfig;
import org.urdma.switchemu.core.SwitchConfig;
import org.urdma.transport.impair.ImpairmentConfig;
import org.urdma.switchemu.sim.Frames;

import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The real-time driver's data path (ports that neither allocate nor copy) allocates nothing per frame. */
class RtSwitchAllocationTest {
    /** Offers the same frame {@code perPass} times per pass; counts what the switch sends. */
    static final class ReplayPort implements FramePort {
        final UnsafeBuffer frame;
        final int length;
        int perPass;
        long sent;

        ReplayPort(byte[] f) {
            frame = new UnsafeBuffer(ByteBuffer.allocateDirect(f.length + 64));
            frame.putBytes(0, f);
            length = f.length;
        }

        @Override
        public int receive(Receiver receiver, int limit) {
            for (int i = 0; i < perPass; i++) {
                receiver.onFrame(frame, 0, length);
            }
            return perPass;
        }

        @Override
        public boolean send(DirectBuffer buffer, int offset, int length) {
            sent++;
            return true;
        }
    }

    @Test
    void forwardingWithPfcEcnAndImpairmentAllocatesNothingPerFrame() {
        long a = 0x02_00_00_00_00_0AL;
        long b = 0x02_00_00_00_00_0BL;
        ReplayPort in = new ReplayPort(Frames.ethernet(b, a, 3, 0x88B6, 64));
        ReplayPort out = new ReplayPort(Frames.ethernet(a, b, 3, 0x88B6, 64));
        SwitchConfig c = new SwitchConfig();
        c.port(new PortConfig().rateBps(100_000_000_000L).pfcMask(0x08).ecn(0x08, 10_000, 100_000, 0.01));
        c.port(new PortConfig().rateBps(100_000_000_000L).pfcMask(0x08).ecn(0x08, 10_000, 100_000, 0.01));
        List<RtSwitch.PortSpec> specs = List.of(new RtSwitch.PortSpec("a", null, in, null, null),
            new RtSwitch.PortSpec("b", null, out, null, ImpairmentConfig.none().delay(1_000, 500, 0).lossRandom(0.01, 0)));
        long[] clock = {1_000_000_000L};
        // the driver reads its clock about once per pass of 16 frames: 800 ns per read is 50 ns per frame
        RtSwitch sw = new RtSwitch("t", c, specs, RtOptions.defaults(), () -> clock[0] += 800);
        out.perPass = 1;
        sw.doWork(); // learn b on port 1
        out.perPass = 0;
        in.perPass = 16;
        for (int i = 0; i < 20_000; i++) {
            sw.doWork(); // warm up
        }
        var threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        long id = Thread.currentThread().threadId();
        long before = threads.getThreadAllocatedBytes(id);
        long sentBefore = out.sent;
        long t0 = System.nanoTime();
        int passes = 50_000;
        for (int i = 0; i < passes; i++) {
            sw.doWork();
        }
        long t1 = System.nanoTime();
        long allocated = threads.getThreadAllocatedBytes(id) - before;
        long frames = (long) passes * in.perPass;
        System.out.printf("RtSwitch data path without kernel I/O: %.0f frames/s in, %d sent, %d bytes allocated%n",
            frames * 1e9 / (t1 - t0), out.sent - sentBefore, allocated);
        assertTrue(out.sent - sentBefore > frames / 2, "frames were forwarded");
        assertEquals(0, allocated, "bytes allocated over " + frames + " frames");
    }
}
