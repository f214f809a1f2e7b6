package org.urdma.switchemu.sim;

import org.junit.jupiter.api.Test;
import org.urdma.switchemu.core.SwitchCore;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The optional VOQ + iSLIP crossbar in front of the output queues. */
class CrossbarSimTest {
    private static final long RATE = 10_000_000_000L;

    private static Star star(int n, int iterations, int pfcMask) {
        Star net = new Star(n, RATE, 500, c -> c.bufferBytes(2_000_000).crossbar(iterations, 0, 0),
            p -> p.pfcMask(pfcMask).headroomBytes(30_000), 3);
        for (int i = 0; i < n; i++) {
            net.sw.core().addStaticMac(Star.mac(i), i);
        }
        return net;
    }

    @Test
    void permutationTrafficCrossesAtLineRateInOrder() {
        int n = 4;
        Star net = star(n, 2, 0);
        int frames = 5_000;
        for (int i = 0; i < n; i++) {
            // full-size frames fill a slot exactly; 1000 B ones leave a padded slot end every other slot
            // (speedup 1), 0.4 % below line rate, and the backlog would grow
            net.hosts[i].send(new Flow(i, Star.mac((i + 1) % n), 0, 1518, frames));
        }
        net.sim.runToIdle(1_000_000_000L);
        long end = 0;
        for (int i = 0; i < n; i++) {
            FlowStats s = net.hosts[(i + 1) % n].stats(i);
            assertEquals(frames, s.unique);
            assertEquals(0, s.reordered);
            end = Math.max(end, s.maxDelayNs);
        }
        SwitchCore core = net.sw.core();
        assertEquals(n * (long) frames, core.crossbarTransfers());
        // a permutation is matched fully every slot: the maximum delay stays bounded (no backlog growth)
        assertTrue(end < 20_000, "max delay " + end);
    }

    @Test
    void aPausedOutputDoesNotBlockTheSameInputsOtherOutputs() {
        // host 0 sends a few frames to 1 (paused by PFC from host 1's side), then many to 2: the frames
        // for the paused output wait in their own VOQ instead of blocking the input's head of line
        Star net = star(3, 2, 0x08);
        byte[] xoff = new byte[60];
        org.urdma.transport.wire.MacControlFrame.putPfc(new org.agrona.concurrent.UnsafeBuffer(xoff), 0, Star.mac(1), 0x08,
            new int[]{0, 0, 0, 0xFFFF, 0, 0, 0, 0});
        for (int k = 0; k < 10; k++) {
            net.hosts[1].sendRaw(xoff, k * 3_000_000L);
        }
        net.hosts[0].send(new Flow(1, Star.mac(1), 3, 1000, 30));
        net.hosts[0].send(new Flow(2, Star.mac(2), 3, 1000, 500).start(30_000));
        net.sim.runUntil(2_000_000);
        assertEquals(500, net.hosts[2].stats(2).unique, "the free output got everything");
        assertEquals(0, net.hosts[1].stats(1).unique, "the paused output got nothing");
        SwitchCore core = net.sw.core();
        assertTrue(core.voqBytes(0, 1, 3) > 0, "frames for the paused output wait in their VOQ");
        assertTrue(core.queueBytes(1, 3) < 2 * 9216 + 1000, "the output queue holds only its small share (+ one frame)");
    }

    @Test
    void incastThroughTheCrossbarIsFairAndLossless() {
        Star net = star(3, 1, 0x08);
        net.hosts[0].send(new Flow(1, Star.mac(2), 3, 1000, 3_000));
        net.hosts[1].send(new Flow(2, Star.mac(2), 3, 1000, 3_000));
        net.sim.runToIdle(1_000_000_000L);
        assertEquals(3_000, net.hosts[2].stats(1).unique);
        assertEquals(3_000, net.hosts[2].stats(2).unique);
        assertEquals(0, net.sw.core().counters(0).totalDrops() + net.sw.core().counters(1).totalDrops());
        assertTrue(net.sw.core().counters(0).pfcTx[3] > 0, "VOQ occupancy counts for PFC");
        // round-robin grants: both senders finish within a few frames of each other
        long d1 = net.hosts[2].stats(1).maxDelayNs;
        long d2 = net.hosts[2].stats(2).maxDelayNs;
        assertTrue(Math.abs(d1 - d2) < 50_000, d1 + " vs " + d2);
    }
}
