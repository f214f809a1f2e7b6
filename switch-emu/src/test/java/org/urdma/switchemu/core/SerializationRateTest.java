package org.urdma.switchemu.core;

import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import org.urdma.switchemu.sim.Frames;

import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** Back-to-back frames leave at the rate the wire overhead model gives, with no per-frame rounding. */
class SerializationRateTest {
    private static final long RATE = 100_000_000_000L;
    private static final long A = 0x02_00_00_00_00_0AL;
    private static final long B = 0x02_00_00_00_00_0BL;

    private int frames;
    private long firstStart = -1;
    private long lastEnd;

    private void record(int port, DirectBuffer buffer, int offset, int length, long start, long end) {
        if (firstStart < 0) {
            firstStart = start;
        }
        lastEnd = end;
        frames++;
    }

    @Test
    void sixtyFourByteFramesAt100GbitLeaveAt142Mpps() {
        SwitchConfig c = new SwitchConfig().bufferBytes(64_000_000).dtAlpha(64);
        c.port(new PortConfig().rateBps(RATE)).port(new PortConfig().rateBps(RATE));
        SwitchCore core = new SwitchCore(c, this::record, new SplittableRandom(1));
        core.addStaticMac(B, 1);
        byte[] frame = Frames.ethernet(B, A, 0, 0x88B6, 64);
        UnsafeBuffer buf = new UnsafeBuffer(frame);
        int n = 100_000;
        for (int i = 0; i < n; i++) {
            core.onFrame(0, buf, 0, frame.length, 0);
        }
        long now = 0;
        for (long next = core.poll(now); next != Long.MAX_VALUE; next = core.poll(now)) {
            now = next;
        }
        assertEquals(n, frames);
        // 64 B + 24 B overhead = 704 bit times = 7.04 ns: 142.05 Mpps (whole-ns rounding made it 8 ns, 125 Mpps)
        double mpps = n / ((lastEnd - firstStart) / 1e9) / 1e6;
        assertEquals(1e3 / 7.04, mpps, 0.05, "Mpps");
        assertEquals(300 + n * 7040L / 1000, lastEnd, "the last frame ends at the exact time, rounded up once");
    }
}
