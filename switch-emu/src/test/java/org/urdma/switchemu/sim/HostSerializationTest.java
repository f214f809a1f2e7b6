package org.urdma.switchemu.sim;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** A simulated host sends back to back at the rate the wire overhead model gives, with no per-frame rounding. */
class HostSerializationTest {
    @Test
    void sixtyFourByteFramesFromAHostAt100GbitLeaveAt142Mpps() {
        Simulator sim = new Simulator();
        SimHost a = new SimHost(sim, "a", Star.mac(0));
        SimHost b = new SimHost(sim, "b", Star.mac(1));
        SimLink link = new SimLink(sim, a, 0, b, 0, 100_000_000_000L, 0);
        a.attach(link);
        b.attach(link);
        long[] last = new long[1];
        link.addTap((from, frame, txEnd) -> last[0] = txEnd);
        int n = 100_000;
        a.send(new Flow(1, Star.mac(1), 0, 64, n));
        sim.runToIdle(1_000_000_000L);
        assertEquals(n, b.stats(1).unique);
        // 64 B + 24 B overhead = 7.04 ns per frame: 142.05 Mpps (whole-ns rounding made it 8 ns, 125 Mpps)
        assertEquals(n * 7040L / 1000, last[0], "the last frame ends at the exact time");
        assertEquals(1e3 / 7.04, n / (last[0] / 1e9) / 1e6, 0.05, "Mpps");
    }
}
