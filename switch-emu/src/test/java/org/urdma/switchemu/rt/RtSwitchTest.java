package org.urdma.switchemu.rt;

import org.junit.jupiter.api.Test;
import org.urdma.switchemu.core.PortConfig;
import org.urdma.switchemu.core.SwitchConfig;
import org.urdma.transport.impair.Impairment;
import org.urdma.transport.impair.ImpairmentConfig;
import org.urdma.switchemu.sim.Frames;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The real-time driver's plumbing, run against in-memory ports and a hand-moved clock. */
class RtSwitchTest {
    private static final long A = 0x02_00_00_00_00_0AL;
    private static final long B = 0x02_00_00_00_00_0BL;

    private final long[] clock = {1_000_000_000L};
    private final InMemoryPort[] ports = {new InMemoryPort(10_000), new InMemoryPort(10_000)};

    private RtSwitch sw(long rateBps, ImpairmentConfig egress) {
        SwitchConfig c = new SwitchConfig().pipelineDelayNs(0);
        c.port(new PortConfig().rateBps(rateBps));
        c.port(new PortConfig().rateBps(rateBps));
        List<RtSwitch.PortSpec> specs = List.of(new RtSwitch.PortSpec("a", null, ports[0], null, null),
            new RtSwitch.PortSpec("b", null, ports[1], null, egress));
        RtSwitch s = new RtSwitch("t", c, specs, RtOptions.defaults().seed(5), () -> clock[0]);
        s.core().addStaticMac(B, 1);
        return s;
    }

    private void advance(RtSwitch s, long ns, long step) {
        long end = clock[0] + ns;
        while (clock[0] < end) {
            clock[0] = Math.min(end, clock[0] + step);
            s.doWork();
        }
    }

    @Test
    void forwardsFramesBetweenPorts() {
        RtSwitch s = sw(10_000_000_000L, null);
        byte[] f = Frames.ethernet(B, A, -1, 0x88B6, 200);
        ports[0].inject(f);
        s.doWork();
        assertArrayEquals(f, ports[1].take());
        assertEquals(1, s.core().counters(0).rxFrames);
    }

    @Test
    void pacesEachPortAtItsRate() {
        long rate = 1_000_000_000L;
        RtSwitch s = sw(rate, null);
        for (int i = 0; i < 10; i++) {
            ports[0].inject(Frames.ethernet(B, A, -1, 0x88B6, 1000));
        }
        s.doWork();
        assertEquals(1, ports[1].pending(), "first frame starts at once");
        long ser = (1024 * 8L * 1_000_000_000L) / rate;
        advance(s, 5 * ser - 10, 100);
        assertEquals(5, ports[1].pending(), "one more per serialization time");
        advance(s, 10 * ser, 100);
        assertEquals(10, ports[1].pending());
    }

    @Test
    void egressImpairmentDelayHoldsTheFrameUntilItsReleaseTime() {
        RtSwitch s = sw(10_000_000_000L, ImpairmentConfig.none().delay(100_000, 0, 0));
        byte[] f = Frames.ethernet(B, A, -1, 0x88B6, 200);
        ports[0].inject(f);
        s.doWork();
        assertEquals(1, s.delayed());
        advance(s, 99_000, 1_000);
        assertNull(ports[1].take(), "not before the delay");
        advance(s, 5_000, 500);
        assertArrayEquals(f, ports[1].take(), "released at the first pass after the delay");
        assertEquals(0, s.delayed());
    }

    @Test
    void lossAndDuplicationApplyInRealTimeToo() {
        RtSwitch s = sw(10_000_000_000L, ImpairmentConfig.none().lossRandom(0.2, 0).duplicate(0.1, 0).delay(1_000, 0, 0));
        Impairment imp = s.port(1).egressImpairment();
        int n = 5_000;
        for (int i = 0; i < n; i++) {
            ports[0].inject(Frames.ethernet(B, A, -1, 0x88B6, 100));
            advance(s, 200, 200);
        }
        advance(s, 100_000, 1_000);
        int out = 0;
        while (ports[1].take() != null) {
            out++;
        }
        assertEquals(n, imp.offered());
        assertEquals(imp.offered() + imp.duplicated() - imp.lost(), out, "every copy the impairment let through came out");
        // netem: P(no copy) = 0.2 × 0.9; P(two copies) = 0.1 × 0.8 × 0.8
        double expected = n * (1 - 0.2 * 0.9 + 0.1 * 0.8 * 0.8);
        assertEquals(expected, out, 4 * Math.sqrt(n * 0.25));
    }

    @Test
    void countersArePublishedFromTheDriverThreadEveryPeriod() {
        RtSwitch s = sw(10_000_000_000L, null);
        org.agrona.concurrent.status.CountersManager manager = new org.agrona.concurrent.status.CountersManager(
            new org.agrona.concurrent.UnsafeBuffer(new byte[1 << 20]), new org.agrona.concurrent.UnsafeBuffer(new byte[1 << 16]));
        s.publish(new org.urdma.switchemu.core.SwitchCounters("t", s.core(), manager), 1_000_000);
        ports[0].inject(Frames.ethernet(B, A, -1, 0x88B6, 200));
        s.doWork();
        long[] rx = {-1};
        manager.forEach((id, type, key, label) -> {
            if (label.equals("t p0 rx-frames")) {
                rx[0] = manager.getCounterValue(id);
            }
        });
        assertEquals(1, rx[0], "published on the first pass");
        ports[0].inject(Frames.ethernet(B, A, -1, 0x88B6, 200));
        advance(s, 500_000, 100_000);
        long[] later = {-1};
        manager.forEach((id, type, key, label) -> {
            if (label.equals("t p0 rx-frames")) {
                later[0] = manager.getCounterValue(id);
            }
        });
        assertEquals(1, later[0], "not again before the period");
        advance(s, 600_000, 100_000);
        manager.forEach((id, type, key, label) -> {
            if (label.equals("t p0 rx-frames")) {
                later[0] = manager.getCounterValue(id);
            }
        });
        assertEquals(2, later[0]);
    }
}
