package org.urdma.switchemu.core;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import org.urdma.switchemu.frame.Mac;
import org.urdma.switchemu.topo.FabricGenerator;
import org.urdma.switchemu.topo.FabricSettings;
import org.urdma.switchemu.topo.Topology;
import org.urdma.switchemu.topo.TopologyParser;

/**
 * A routed switch floods nothing, yet hosts find each other's MACs: a broadcast ARP request goes where its target
 * address is routed, and only there.
 */
class RoutedArpTest {
    private final Topology t = TopologyParser.parse(FabricGenerator.leafSpine(new FabricGenerator.LeafSpine(2, 2, 2,
            10_000_000_000L, 10_000_000_000L, 1_000, 1_000), FabricSettings.hpcc(10_000_000_000L).withBuffer(1_000_000)), "leaf-spine");
    private final List<Integer> out = new ArrayList<>();
    private final SwitchCore leaf0 = new SwitchCore(t.switchConfig("leaf0"), (port, b, o, l, s, e) -> out.add(port),
            new SplittableRandom(1));
    private long now = 1_000_000;

    /** A 60-byte ARP request from h0 asking for {@code target}, to {@code da}. */
    private static UnsafeBuffer arpRequest(long da, long sa, int sender, int target, int etherType) {
        UnsafeBuffer b = new UnsafeBuffer(new byte[60]);
        for (int i = 0; i < 6; i++) {
            b.putByte(i, (byte) (da >>> (40 - 8 * i)));
            b.putByte(6 + i, (byte) (sa >>> (40 - 8 * i)));
            b.putByte(22 + i, (byte) (sa >>> (40 - 8 * i)));
        }
        b.putShort(12, (short) etherType, ByteOrder.BIG_ENDIAN);
        b.putShort(14, (short) 1, ByteOrder.BIG_ENDIAN);
        b.putShort(16, (short) 0x0800, ByteOrder.BIG_ENDIAN);
        b.putByte(18, (byte) 6);
        b.putByte(19, (byte) 4);
        b.putShort(20, (short) 1, ByteOrder.BIG_ENDIAN);
        b.putInt(28, sender, ByteOrder.BIG_ENDIAN);
        b.putInt(38, target, ByteOrder.BIG_ENDIAN);
        return b;
    }

    private static int ip(Topology.Host h) {
        String[] q = h.ipv4().split("/")[0].split("\\.");
        return Integer.parseInt(q[0]) << 24 | Integer.parseInt(q[1]) << 16 | Integer.parseInt(q[2]) << 8 | Integer.parseInt(q[3]);
    }

    private List<Integer> send(UnsafeBuffer frame) {
        out.clear();
        leaf0.onFrame(0, frame, 0, frame.capacity(), now);
        now = Math.max(now + 10_000, leaf0.poll(now));
        leaf0.poll(now);
        return List.copyOf(out);
    }

    @Test
    void aBroadcastArpRequestGoesOnlyTowardsItsTarget() {
        Topology.Host h0 = t.hosts().get("h0");
        Topology.Host h1 = t.hosts().get("h1");
        Topology.Host h2 = t.hosts().get("h2");
        List<Integer> local = send(arpRequest(Mac.BROADCAST, h0.mac(), ip(h0), ip(h1), 0x0806));
        assertEquals(List.of(1), local, "h1 (port 1, same leaf) alone hears the request");
        List<Integer> remote = send(arpRequest(Mac.BROADCAST, h0.mac(), ip(h0), ip(h2), 0x0806));
        assertEquals(1, remote.size(), "one copy, not a flood: " + remote);
        assertEquals(true, remote.get(0) >= 2, "h2 is behind an uplink (ports 2, 3): " + remote);
        assertEquals(0, leaf0.counters(0).drops(DropReason.NO_ROUTE));
    }

    @Test
    void anArpForAnUnknownAddressAndOtherBroadcastsHaveNoRoute() {
        Topology.Host h0 = t.hosts().get("h0");
        assertEquals(List.of(), send(arpRequest(Mac.BROADCAST, h0.mac(), ip(h0), 0x0B000001, 0x0806)));
        assertEquals(List.of(), send(arpRequest(Mac.BROADCAST, h0.mac(), ip(h0), ip(t.hosts().get("h2")), 0x0800)));
        assertEquals(2, leaf0.counters(0).drops(DropReason.NO_ROUTE));
    }
}
