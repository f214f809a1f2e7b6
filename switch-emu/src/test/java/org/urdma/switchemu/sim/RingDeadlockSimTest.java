package org.urdma.switchemu.sim;

import org.junit.jupiter.api.Test;
import org.urdma.switchemu.core.DropReason;
import org.urdma.switchemu.core.PortConfig;
import org.urdma.switchemu.core.SwitchConfig;
import org.urdma.switchemu.core.SwitchCore;
import org.urdma.switchemu.core.WatchdogAction;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Three switches in a ring, each host sending two hops clockwise: every ring link carries two flows
 * (a cyclic buffer dependency). Under PFC the ring deadlocks; the PFC watchdog breaks it.
 */
class RingDeadlockSimTest {
    private static final long RATE = 10_000_000_000L;
    private static final int PRIO = 3;
    private static final int HOST = 0;
    private static final int CW_OUT = 1;
    private static final long DETECTION = 1_000_000;
    private static final long RESTORATION = 4_000_000;

    private final Simulator sim = new Simulator();
    private final SimSwitch[] switches = new SimSwitch[3];
    private final SimHost[] hosts = new SimHost[3];

    private void build(boolean watchdog) {
        for (int i = 0; i < 3; i++) {
            SwitchConfig c = new SwitchConfig().bufferBytes(300_000).reserveBytes(1_500).dtAlpha(1).resumeOffsetBytes(3_000);
            for (int p = 0; p < 3; p++) {
                c.port(new PortConfig().mac(0x02_00_00_00_A0_00L + 16 * i + p).rateBps(RATE).pfcMask(1 << PRIO)
                    .headroomBytes(20_000));
            }
            if (watchdog) {
                c.watchdog(DETECTION, RESTORATION, WatchdogAction.DROP);
            }
            switches[i] = new SimSwitch(sim, "s" + i, c, 100 + i);
            hosts[i] = new SimHost(sim, "h" + i, Star.mac(i));
        }
        for (int i = 0; i < 3; i++) {
            SimLink toHost = new SimLink(sim, hosts[i], 0, switches[i], HOST, RATE, 1_000);
            hosts[i].attach(toHost);
            switches[i].attach(HOST, toHost);
            int next = (i + 1) % 3;
            SimLink ring = new SimLink(sim, switches[i], CW_OUT, switches[next], 2, RATE, 1_000);
            switches[i].attach(CW_OUT, ring);
            switches[next].attach(2, ring);
            SwitchCore core = switches[i].core();
            core.addStaticMac(Star.mac(i), HOST);
            core.addStaticMac(Star.mac(next), CW_OUT);
            core.addStaticMac(Star.mac((i + 2) % 3), CW_OUT);
        }
    }

    private void burst() {
        for (int i = 0; i < 3; i++) {
            hosts[i].send(new Flow(10 + i, Star.mac((i + 2) % 3), PRIO, 1000, 4000));
        }
    }

    private long stalledQueues(long now) {
        long n = 0;
        for (SimSwitch s : switches) {
            n += s.core().queueBytes(CW_OUT, PRIO) > 0 ? 1 : 0;
        }
        return n;
    }

    @Test
    void cyclicBufferDependencyDeadlocksUnderPfc() {
        build(false);
        burst();
        sim.runUntil(20_000_000);
        long txBefore = ringTx();
        sim.runUntil(40_000_000);
        assertEquals(3, stalledQueues(sim.now()), "all three ring queues hold frames");
        assertEquals(txBefore, ringTx(), "nothing moves on the ring");
        // a new one-hop flow behind the deadlock never arrives
        hosts[0].send(new Flow(20, Star.mac(1), PRIO, 1000, 10));
        sim.runUntil(60_000_000);
        assertEquals(0, hosts[1].stats(20).unique);
        for (SimSwitch s : switches) {
            assertEquals(0, s.core().counters(CW_OUT).watchdogStorms[PRIO]);
        }
    }

    @Test
    void watchdogDropsTheStalledQueuesAndRestoresFlow() {
        build(true);
        long[] stallStart = {Long.MAX_VALUE};
        burst();
        // find when the ring stopped moving: sample every 50 µs
        long lastTx = -1;
        long lastChange = 0;
        boolean detected = false;
        long detectedAt = 0;
        for (long t = 50_000; t <= 40_000_000; t += 50_000) {
            sim.runUntil(t);
            long tx = ringTx();
            if (tx != lastTx) {
                lastTx = tx;
                lastChange = t;
            }
            if (!detected && storms() > 0) {
                detected = true;
                detectedAt = t;
                stallStart[0] = lastChange;
            }
        }
        assertTrue(detected, "watchdog detected the storm");
        assertTrue(detectedAt - stallStart[0] <= DETECTION + 200_000,
            "detected within the detection time: stalled at " + stallStart[0] + ", detected by " + detectedAt);
        long restores = 0;
        long watchdogDrops = 0;
        for (SimSwitch s : switches) {
            restores += s.core().counters(CW_OUT).watchdogRestores[PRIO];
            for (int p = 0; p < 3; p++) {
                watchdogDrops += s.core().counters(p).drops(DropReason.WATCHDOG);
            }
            assertEquals(0, s.core().bufferUsed(), s.name() + " drained");
            assertTrue(!s.core().inStorm(CW_OUT, PRIO), s.name() + " restored");
        }
        assertTrue(restores >= 1 && watchdogDrops > 0, "counters: restores=" + restores + " drops=" + watchdogDrops);
        // flow is restored: new traffic over every ring link arrives in full
        for (int i = 0; i < 3; i++) {
            hosts[i].send(new Flow(30 + i, Star.mac((i + 2) % 3), PRIO, 1000, 10));
        }
        sim.runUntil(45_000_000);
        for (int i = 0; i < 3; i++) {
            assertEquals(10, hosts[(i + 2) % 3].stats(30 + i).unique, "probe " + i + " delivered");
        }
    }

    @Test
    void restorationHappensWithinDetectionPlusRestorationOfTheStall() {
        build(true);
        burst();
        long stall = -1;
        long restored = -1;
        long lastTx = -1;
        long lastChange = 0;
        for (long t = 20_000; t <= 40_000_000 && restored < 0; t += 20_000) {
            sim.runUntil(t);
            long tx = ringTx();
            if (tx != lastTx) {
                lastTx = tx;
                lastChange = t;
            }
            if (stall < 0 && storms() > 0) {
                stall = lastChange;
            }
            if (stall >= 0 && restoresTotal() > 0) {
                restored = t;
            }
        }
        assertTrue(stall >= 0 && restored >= 0, "stall at " + stall + ", restored at " + restored);
        assertTrue(restored - stall <= DETECTION + RESTORATION + 100_000,
            "restored " + (restored - stall) + " ns after the stall began");
    }

    private long storms() {
        long n = 0;
        for (SimSwitch s : switches) {
            n += s.core().counters(CW_OUT).watchdogStorms[PRIO];
        }
        return n;
    }

    private long restoresTotal() {
        long n = 0;
        for (SimSwitch s : switches) {
            n += s.core().counters(CW_OUT).watchdogRestores[PRIO];
        }
        return n;
    }

    private long ringTx() {
        long n = 0;
        for (SimSwitch s : switches) {
            n += s.core().counters(CW_OUT).txFrames - s.core().counters(CW_OUT).pfcTx[PRIO];
        }
        return n;
    }
}

