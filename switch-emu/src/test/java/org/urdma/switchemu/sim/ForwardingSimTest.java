package org.urdma.switchemu.sim;

import org.junit.jupiter.api.Test;
import org.urdma.switchemu.core.DropReason;
import org.urdma.switchemu.core.MacTable;
import org.urdma.switchemu.core.PortCounters;
import org.urdma.switchemu.frame.Mac;
import org.urdma.transport.wire.MacControlFrame;
import org.agrona.concurrent.UnsafeBuffer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ForwardingSimTest {
    private static final long GBPS10 = 10_000_000_000L;

    @Test
    void twoHostsExchangeFramesAndTheSwitchLearnsBothMacs() {
        Star net = new Star(2, GBPS10, 1_000, c -> { }, p -> { }, 1);
        net.hosts[0].send(new Flow(1, Star.mac(1), 0, 500, 100));
        net.hosts[1].send(new Flow(2, Star.mac(0), 0, 500, 100).start(50_000));
        net.sim.runToIdle(10_000_000);
        assertEquals(100, net.hosts[1].stats(1).unique);
        assertEquals(100, net.hosts[0].stats(2).unique);
        MacTable table = net.sw.core().macTable();
        assertEquals(0, table.lookup(Star.mac(0), net.sim.now()));
        assertEquals(1, table.lookup(Star.mac(1), net.sim.now()));
        assertEquals(0, net.sw.core().counters(0).totalDrops());
    }

    @Test
    void unknownDestinationIsFloodedUntilLearnedThenForwardedOnlyToItsPort() {
        Star net = new Star(3, GBPS10, 1_000, c -> { }, p -> { }, 1);
        // h0 → h1 before h1 has spoken: flooded to h1 and h2
        net.hosts[0].send(new Flow(1, Star.mac(1), 0, 200, 10));
        net.sim.runToIdle(1_000_000);
        assertEquals(10, net.hosts[1].stats(1).unique);
        assertEquals(10, net.hosts[2].rxForeign, "unknown unicast DA must be flooded");
        // h1 speaks, the switch learns it; h0 → h1 now goes to port 1 only
        net.hosts[1].send(new Flow(2, Star.mac(0), 0, 200, 1).start(2_000_000));
        net.hosts[0].send(new Flow(3, Star.mac(1), 0, 200, 10).start(3_000_000));
        net.sim.runToIdle(10_000_000);
        assertEquals(10, net.hosts[1].stats(3).unique);
        assertEquals(10, net.hosts[2].rxForeign, "a learned DA is not flooded");
        assertEquals(1, net.hosts[0].stats(2).unique);
        assertEquals(1, net.sw.core().macTable().lookup(Star.mac(1), net.sim.now()));
    }

    @Test
    void broadcastReachesEveryOtherPort() {
        Star net = new Star(3, GBPS10, 1_000, c -> { }, p -> { }, 1);
        net.hosts[2].send(new Flow(7, Mac.BROADCAST, 0, 100, 5));
        net.sim.runToIdle(1_000_000);
        assertEquals(5, net.hosts[0].stats(7).unique);
        assertEquals(5, net.hosts[1].stats(7).unique);
        assertEquals(0, net.hosts[2].rxFrames);
    }

    @Test
    void learnedAddressAgesOut() {
        Star net = new Star(3, GBPS10, 1_000, c -> c.macAgingNs(1_000_000), p -> { }, 1);
        net.hosts[1].send(new Flow(1, Star.mac(0), 0, 100, 1));
        net.sim.runToIdle(100_000);
        assertEquals(1, net.sw.core().macTable().lookup(Star.mac(1), net.sim.now()));
        net.hosts[0].send(new Flow(2, Star.mac(1), 0, 100, 1).start(3_000_000));
        net.sim.runToIdle(10_000_000);
        // h1's own frame to the then-unknown h0 was flooded to h2 once; after aging h1 is unknown again
        assertEquals(2, net.hosts[2].rxForeign, "after aging the DA is unknown again and flooded");
    }

    @Test
    void pfcPauseAndLinkLocalFramesAreNeverForwarded() {
        Star net = new Star(3, GBPS10, 1_000, c -> { }, p -> p.pfcMask(0x08), 1);
        byte[] pfc = new byte[60];
        MacControlFrame.putPfc(new UnsafeBuffer(pfc), 0, Star.mac(0), 0x08, new int[]{0, 0, 0, 100, 0, 0, 0, 0});
        byte[] pause = new byte[60];
        MacControlFrame.putPause(new UnsafeBuffer(pause), 0, Star.mac(0), 100);
        byte[] lldp = Frames.ethernet(0x0180_C200_000EL, Star.mac(0), -1, 0x88CC, 60);
        byte[] stp = Frames.ethernet(0x0180_C200_0000L, Star.mac(0), -1, 0x0026, 60);
        net.hosts[0].sendRaw(pfc, 0);
        net.hosts[0].sendRaw(pause, 0);
        net.hosts[0].sendRaw(lldp, 0);
        net.hosts[0].sendRaw(stp, 0);
        net.sim.runToIdle(1_000_000);
        assertEquals(0, net.hosts[1].rxFrames + net.hosts[2].rxFrames);
        assertEquals(0, net.hosts[1].pfcRx[3] + net.hosts[2].pfcRx[3]);
        PortCounters c = net.sw.core().counters(0);
        assertEquals(1, c.pfcRx[3]);
        assertEquals(1, c.pauseRx);
        assertEquals(2, c.drops(DropReason.RESERVED_DA));
    }

    @Test
    void malformedFramesAreCountedAndDropped() {
        Star net = new Star(2, GBPS10, 1_000, c -> { }, p -> { }, 1);
        net.hosts[0].sendRaw(new byte[10], 0);
        byte[] truncatedVlan = new byte[16];
        truncatedVlan[12] = (byte) 0x81;
        net.hosts[0].sendRaw(truncatedVlan, 0);
        net.sim.runToIdle(1_000_000);
        assertEquals(2, net.sw.core().counters(0).drops(DropReason.MALFORMED));
        assertEquals(0, net.hosts[1].rxFrames);
    }

    @Test
    void storeAndForwardLatencyIsSerializationTwicePlusPipelineAndPropagation() {
        Star net = new Star(2, GBPS10, 1_000, c -> c.pipelineDelayNs(300), p -> { }, 1);
        net.hosts[1].send(new Flow(9, Star.mac(0), 0, 1000, 1));
        net.hosts[0].send(new Flow(1, Star.mac(1), 0, 1000, 1).start(100_000));
        net.sim.runToIdle(1_000_000);
        long ser = ((1000 + 24) * 8L * 1_000_000_000L + GBPS10 - 1) / GBPS10;
        assertEquals(2 * ser + 2 * 1_000 + 300, net.hosts[1].stats(1).minDelayNs);
    }

    @Test
    void cutThroughStartsOncePreambleAndHeaderAreInBeforeTheWholeFrame() {
        Star net = new Star(2, GBPS10, 1_000, c -> c.pipelineDelayNs(300)
            .forwarding(org.urdma.switchemu.core.ForwardingMode.CUT_THROUGH), p -> { }, 1);
        net.hosts[1].send(new Flow(9, Star.mac(0), 0, 1000, 1));
        net.hosts[0].send(new Flow(1, Star.mac(1), 0, 1000, 1).start(100_000));
        net.sim.runToIdle(1_000_000);
        double ser = (1000 + 24) * 8.0 * 1e9 / GBPS10;
        long delay = net.hosts[1].stats(1).minDelayNs;
        // preamble+SFD (8 B) + 64 header bytes = 57.6 ns at 10 Gbit/s (without the preamble it was 51.2 ns)
        double header = (8 + 64) * 8.0 * 1e9 / GBPS10;
        assertEquals(1_000 + header + 300 + ser + 1_000, delay, 2.5, "cut-through: preamble + first bytes + pipeline, then out");
        assertTrue(delay < 2 * ser + 2_000 + 300, "faster than store-and-forward: " + delay);
    }
}
