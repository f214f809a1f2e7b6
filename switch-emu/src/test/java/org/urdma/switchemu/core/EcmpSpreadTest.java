package org.urdma.switchemu.core;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteOrder;
import java.util.SplittableRandom;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import org.urdma.switchemu.topo.FabricGenerator;
import org.urdma.switchemu.topo.FabricSettings;
import org.urdma.switchemu.topo.Topology;
import org.urdma.switchemu.topo.TopologyParser;
import org.urdma.transport.link.LinkFraming;

/**
 * ECMP on a generated leaf-spine with four spines: RoCEv2 flows from a host of leaf0 to a host of leaf1, one per QP
 * (so one UDP source port each, as the engine derives it), leave leaf0 over the spines as a fair hash would spread
 * them.
 */
class EcmpSpreadTest {
    private static final int FLOWS = 1000;
    private static final int SPINES = 4;

    /** Which uplink (0..3) each flow left leaf0 on, with the leaf's ECMP seed {@code seed}. */
    private static int[] spread(long seed) {
        String yaml = FabricGenerator.leafSpine(new FabricGenerator.LeafSpine(2, SPINES, 2, 100_000_000_000L, 100_000_000_000L,
                1_000, 1_000), FabricSettings.hpcc(100_000_000_000L).withBuffer(4_000_000));
        Topology t = TopologyParser.parse(yaml.replace("name: leaf0, routing: ecmp, ecmpSeed: 0", "name: leaf0, routing: ecmp, ecmpSeed: "
                + seed), "leaf-spine");
        long dst = t.hosts().get("h2").mac();
        int[] uplink = new int[FLOWS];
        int[] last = {-1};
        SwitchCore core = new SwitchCore(t.switchConfig("leaf0"), (port, b, o, l, s, e) -> last[0] = port, new SplittableRandom(1));
        UnsafeBuffer frame = new UnsafeBuffer(new byte[128]);
        long now = 1_000_000;
        for (int q = 0; q < FLOWS; q++) {
            roce2(frame, dst, t.hosts().get("h0").mac(), LinkFraming.udpSourcePort(0x100 + q));
            core.onFrame(0, frame, 0, 128, now);
            last[0] = -1;
            now = Math.max(now + 1_000, core.poll(now));
            core.poll(now);
            assertTrue(last[0] >= 2, "flow " + q + " left on an uplink (ports 2..5), was " + last[0]);
            uplink[q] = last[0] - 2;
        }
        return uplink;
    }

    /** A 128-byte RoCEv2 frame: Ethernet, IPv4 10.0.0.1 → 10.0.0.3 (UDP), the given source port to 4791. */
    static void roce2(UnsafeBuffer b, long dst, long src, int sport) {
        b.setMemory(0, 128, (byte) 0);
        for (int i = 0; i < 6; i++) {
            b.putByte(i, (byte) (dst >>> (40 - 8 * i)));
            b.putByte(6 + i, (byte) (src >>> (40 - 8 * i)));
        }
        b.putShort(12, (short) 0x0800, ByteOrder.BIG_ENDIAN);
        b.putByte(14, (byte) 0x45);
        b.putByte(15, (byte) 0x02); // ECT(0)
        b.putShort(16, (short) 114, ByteOrder.BIG_ENDIAN);
        b.putByte(22, (byte) 64);
        b.putByte(23, (byte) 17);
        b.putInt(26, 0x0A000001, ByteOrder.BIG_ENDIAN);
        b.putInt(30, 0x0A000003, ByteOrder.BIG_ENDIAN);
        b.putShort(34, (short) sport, ByteOrder.BIG_ENDIAN);
        b.putShort(36, (short) 4791, ByteOrder.BIG_ENDIAN);
        b.putShort(38, (short) 94, ByteOrder.BIG_ENDIAN);
    }

    private static int[] counts(int[] uplink) {
        int[] c = new int[SPINES];
        for (int u : uplink) c[u]++;
        return c;
    }

    @Test
    void aThousandFlowsBetweenTwoLeavesSpreadOverFourSpinesWithinTheBinomialBound() {
        // each spine's count is Binomial(1000, 1/4): mean 250, sigma 13.7; 250 +- 4.5 sigma = [188, 312] holds for a fair
        // hash with probability 1 - 7e-6 per spine
        int[] c = counts(spread(0));
        for (int s = 0; s < SPINES; s++) {
            assertTrue(c[s] >= 188 && c[s] <= 312, "spine " + s + " carried " + c[s] + " of 1000 flows: " + java.util.Arrays.toString(c));
        }
        assertEquals(FLOWS, c[0] + c[1] + c[2] + c[3]);
    }

    @Test
    void changingTheLeafsSeedChangesWhichSpineEachFlowTakes() {
        int[] a = spread(0);
        int[] b = spread(7);
        int moved = 0;
        for (int q = 0; q < FLOWS; q++) {
            if (a[q] != b[q]) moved++;
        }
        // independent hashes agree on a flow with probability 1/4: about 750 move (sigma 14)
        assertTrue(moved > 650, "only " + moved + " of 1000 flows changed spine with the seed");
        int[] c = counts(b);
        for (int s = 0; s < SPINES; s++) assertTrue(c[s] >= 188 && c[s] <= 312, java.util.Arrays.toString(c));
        assertArrayEquals(a, spread(0), "the same seed spreads the same way");
    }
}
