package org.urdma.switchemu.sim;

import org.junit.jupiter.api.Test;
import org.urdma.switchemu.core.DropReason;
import org.urdma.switchemu.core.PortConfig;
import org.urdma.switchemu.core.SwitchConfig;
import org.urdma.switchemu.frame.FrameView;
import org.urdma.transport.wire.MacControlFrame;
import org.agrona.concurrent.UnsafeBuffer;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.function.Consumer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Incast 2→1 through a small shared buffer, with and without PFC on a lossless priority. */
class IncastPfcSimTest {
    private static final long RATE = 10_000_000_000L;
    private static final int FRAMES = 3000;
    private static final int LOSSLESS = 3;

    private static final Consumer<SwitchConfig> SMALL_BUFFER = c -> c.bufferBytes(200_000).reserveBytes(1_500)
        .dtAlpha(1.0).resumeOffsetBytes(3_000);

    private static Star incast(int pfcMask) {
        Consumer<PortConfig> ports = p -> p.pfcMask(pfcMask).headroomBytes(20_000);
        Star net = new Star(3, RATE, 1_000, SMALL_BUFFER, ports, 7);
        // let the switch learn h2 first so the incast is unicast
        net.hosts[2].send(new Flow(99, Star.mac(0), 0, 64, 1));
        return net;
    }

    /** PFC frames on a link, as (class-enable vector) per frame, sent by the switch towards the host. */
    private static List<Integer> pfcFromSwitch(Star net, int port) {
        List<Integer> vectors = new ArrayList<>();
        net.links[port].addTap((from, frame, t) -> {
            UnsafeBuffer b = new UnsafeBuffer(frame);
            if (from == net.sw && (((frame[12] & 0xFF) << 8) | (frame[13] & 0xFF)) == FrameView.ETHERTYPE_MAC_CONTROL) {
                vectors.add(MacControlFrame.classEnable(b, 0));
            }
        });
        return vectors;
    }

    @Test
    void withPfcTheIncastIsLosslessAndSendersSeePfcForTheirPriorityOnly() {
        Star net = incast(1 << LOSSLESS);
        List<Integer> onLink0 = pfcFromSwitch(net, 0);
        List<Integer> onLink1 = pfcFromSwitch(net, 1);
        net.hosts[0].send(new Flow(1, Star.mac(2), LOSSLESS, 1000, FRAMES).start(10_000));
        net.hosts[1].send(new Flow(2, Star.mac(2), LOSSLESS, 1000, FRAMES).start(10_000));
        net.sim.runToIdle(100_000_000);

        for (int p = 0; p < 3; p++) {
            assertEquals(0, net.sw.core().counters(p).totalDrops(), "drops on port " + p);
        }
        assertEquals(FRAMES, net.hosts[2].stats(1).unique);
        assertEquals(FRAMES, net.hosts[2].stats(2).unique);
        assertTrue(!onLink0.isEmpty() && !onLink1.isEmpty(), "PFC frames seen on both senders' links");
        assertTrue(onLink0.stream().allMatch(v -> v == 1 << LOSSLESS), "class-enable vectors " + onLink0);
        assertTrue(onLink1.stream().allMatch(v -> v == 1 << LOSSLESS), "class-enable vectors " + onLink1);
        assertEquals(Set.of(1 << LOSSLESS), net.hosts[0].pfcVectors);
        assertTrue(net.sw.core().counters(0).pfcTx[LOSSLESS] > 0);
        assertTrue(net.sw.core().counters(0).pfcXonTx[LOSSLESS] > 0, "XON follows XOFF");
        assertEquals(0, net.sw.core().bufferUsed(), "buffer drained");
        assertTrue(net.sw.core().counters(2).queueHighWater[LOSSLESS] > 20_000);
    }

    @Test
    void withoutPfcTheSameIncastDropsAndCountsIt() {
        Star net = incast(0);
        List<Integer> onLink0 = pfcFromSwitch(net, 0);
        net.hosts[0].send(new Flow(1, Star.mac(2), LOSSLESS, 1000, FRAMES).start(10_000));
        net.hosts[1].send(new Flow(2, Star.mac(2), LOSSLESS, 1000, FRAMES).start(10_000));
        net.sim.runToIdle(100_000_000);

        long drops = net.sw.core().counters(0).drops(DropReason.SHARED_THRESHOLD)
            + net.sw.core().counters(1).drops(DropReason.SHARED_THRESHOLD);
        long delivered = net.hosts[2].stats(1).unique + net.hosts[2].stats(2).unique;
        assertTrue(drops > 0, "drops counted");
        assertEquals(2L * FRAMES, delivered + drops, "every frame delivered or counted as dropped");
        assertTrue(onLink0.isEmpty());
        assertEquals(0, net.sw.core().counters(0).pfcTx[LOSSLESS]);
    }

    @Test
    void aPausedSenderKeepsSendingItsOtherPriority() {
        Star net = incast(1 << LOSSLESS);
        long[] pausedUntil = {0};
        long[] otherWhilePaused = {0};
        long[] losslessWhilePaused = {0};
        net.hosts[0].observe(new SimHost.Observer() {
            @Override
            public void flowControl(SimHost host, int enable, int[] quanta, long now) {
                if ((enable & (1 << LOSSLESS)) != 0) {
                    int q = quanta[LOSSLESS];
                    pausedUntil[0] = q == 0 ? now : now + MacControlFrame.quantaToNanos(q, RATE);
                }
            }

            @Override
            public void sent(SimHost host, Flow flow, long start) {
                if (start < pausedUntil[0]) {
                    if (flow.priority() == LOSSLESS) {
                        losslessWhilePaused[0]++;
                    } else {
                        otherWhilePaused[0]++;
                    }
                }
            }
        });
        net.hosts[0].send(new Flow(1, Star.mac(2), LOSSLESS, 1000, FRAMES).start(10_000));
        net.hosts[0].send(new Flow(3, Star.mac(2), 1, 1000, FRAMES).start(10_000));
        net.hosts[1].send(new Flow(2, Star.mac(2), LOSSLESS, 1000, FRAMES).start(10_000));
        net.sim.runToIdle(100_000_000);

        assertTrue(net.hosts[0].pfcRx[LOSSLESS] > 0, "h0 was paused");
        assertEquals(0, net.hosts[0].pfcRx[1], "priority 1 is lossy: never paused");
        assertEquals(0, losslessWhilePaused[0], "no lossless frame starts while paused");
        assertTrue(otherWhilePaused[0] > 100, "priority 1 kept flowing while 3 was paused: " + otherWhilePaused[0]);
        assertEquals(FRAMES, net.hosts[2].stats(1).unique, "lossless flow complete");
        assertEquals(FRAMES, net.hosts[2].stats(2).unique, "lossless flow complete");
    }
}
