package org.urdma.switchemu.sim;

import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import org.urdma.switchemu.core.DropReason;
import org.urdma.switchemu.core.WatchdogAction;
import org.urdma.transport.wire.MacControlFrame;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A broken receiver NIC that sends XOFF forever (a PFC storm): back-pressure stops its sender, and with
 * it an innocent flow from the same sender to a healthy host. The watchdog drops the stormed queue and
 * the innocent flow completes.
 */
class PfcStormSimTest {
    private static final long RATE = 10_000_000_000L;

    private static Star storm(boolean watchdog, WatchdogAction action) {
        Star net = new Star(3, RATE, 1_000, c -> {
            c.bufferBytes(300_000).reserveBytes(1_500).dtAlpha(1);
            if (watchdog) {
                c.watchdog(500_000, 1_000_000, action);
            }
        }, p -> p.pfcMask(0x08).headroomBytes(20_000), 4);
        for (int i = 0; i < 3; i++) {
            net.sw.core().addStaticMac(Star.mac(i), i);
        }
        byte[] xoff = new byte[60];
        MacControlFrame.putPfc(new UnsafeBuffer(xoff), 0, Star.mac(2), 0x08, new int[]{0, 0, 0, 0xFFFF, 0, 0, 0, 0});
        // host 2 storms for 20 ms: an XOFF every 100 µs
        for (long t = 0; t < 20_000_000; t += 100_000) {
            net.hosts[2].sendRaw(xoff, t);
        }
        net.hosts[0].send(new Flow(1, Star.mac(2), 3, 1000, 2_000).start(10_000));   // into the storm
        net.hosts[0].send(new Flow(2, Star.mac(1), 3, 1000, 2_000).start(10_000));   // innocent
        return net;
    }

    @Test
    void withoutWatchdogTheInnocentFlowIsStuckBehindTheStorm() {
        Star net = storm(false, WatchdogAction.DROP);
        net.sim.runUntil(15_000_000);
        assertTrue(net.hosts[1].stats(2).unique < 2_000, "innocent flow blocked: " + net.hosts[1].stats(2).unique);
        assertTrue(net.hosts[0].pfcRx[3] > 0, "the sender was paused by the switch");
    }

    @Test
    void watchdogDropBreaksTheStormAndTheInnocentFlowCompletes() {
        Star net = storm(true, WatchdogAction.DROP);
        net.sim.runUntil(15_000_000);
        assertEquals(2_000, net.hosts[1].stats(2).unique, "innocent flow completed during the storm");
        assertEquals(1, net.sw.core().counters(2).watchdogStorms[3]);
        assertTrue(net.sw.core().counters(0).drops(DropReason.WATCHDOG) > 0, "frames into the storm dropped");
        assertTrue(net.sw.core().inStorm(2, 3), "storm still on while XOFF keeps coming");
        net.sim.runUntil(40_000_000);
        assertEquals(1, net.sw.core().counters(2).watchdogRestores[3], "restored once the XOFFs stopped");
    }

    @Test
    void watchdogForwardIgnoresThePauseSoBothFlowsComplete() {
        Star net = storm(true, WatchdogAction.FORWARD);
        net.sim.runUntil(15_000_000);
        assertEquals(2_000, net.hosts[1].stats(2).unique);
        assertEquals(2_000, net.hosts[2].stats(1).unique, "forwarded despite the storm");
        assertEquals(0, net.sw.core().counters(0).drops(DropReason.WATCHDOG));
    }
}
