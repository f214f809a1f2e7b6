package org.urdma.switchemu.core;

import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import org.urdma.switchemu.sim.Frames;
import org.urdma.transport.wire.MacControlFrame;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** A received PFC pause lasts its quanta exactly, also where a quantum is not a whole ns. */
class PfcQuantaTest {
    private static final long RATE = 400_000_000_000L;
    private static final long A = 0x02_00_00_00_00_0AL;
    private static final long B = 0x02_00_00_00_00_0BL;

    @Test
    void sevenQuantaAt400GbitPauseFor8_96ns() {
        SwitchConfig c = new SwitchConfig().pipelineDelayNs(0);
        c.port(new PortConfig().rateBps(RATE).pfcMask(0x08)).port(new PortConfig().rateBps(RATE).pfcMask(0x08));
        List<long[]> sent = new ArrayList<>();
        SwitchCore core = new SwitchCore(c, (int port, DirectBuffer b, int o, int l, long start, long end) -> {
            if (port == 1) {
                sent.add(new long[]{start, end});
            }
        }, new SplittableRandom(1));
        core.addStaticMac(B, 1);
        byte[] pfc = new byte[60];
        MacControlFrame.putPfc(new UnsafeBuffer(pfc), 0, B, 0x08, new int[]{0, 0, 0, 7, 0, 0, 0, 0});
        core.onFrame(1, new UnsafeBuffer(pfc), 0, pfc.length, 0);
        byte[] data = Frames.ethernet(B, A, 3, 0x88B6, 500);
        core.onFrame(0, new UnsafeBuffer(data), 0, data.length, 0);
        long now = 0;
        for (long next = core.poll(now); next != Long.MAX_VALUE && sent.isEmpty(); next = core.poll(now)) {
            now = next;
        }
        // 7 × 512 bit times at 400 Gbit/s = 8.96 ns: the frame starts then (reported as 9), not at 8 (truncated)
        assertEquals(1, sent.size());
        assertEquals(9, sent.get(0)[0], "start");
        // and ends exactly 524 B of wire time (10.48 ns) after 8.96 ns: 19.44, reported as 20
        assertEquals(20, sent.get(0)[1], "end");
    }
}
