package org.urdma.switchemu.rt;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.urdma.nativeio.netns.junit.RootAssumptions;
import org.urdma.switchemu.core.SwitchCore;
import org.urdma.switchemu.topo.FabricGenerator;
import org.urdma.switchemu.topo.FabricSettings;
import org.urdma.switchemu.topo.Topology;
import org.urdma.switchemu.topo.TopologyParser;
import org.urdma.transport.api.Stats;
import org.urdma.transport.counters.Counter;
import org.urdma.transport.driver.MemoryFabric;
import org.urdma.transport.link.LinkFraming;
import org.urdma.transport.rate.RateControl;
import org.urdma.transport.wire.FramingKind;
import org.urdma.verbs.PathMtu;
import org.urdma.verbs.QueuePair;

/**
 * A generated leaf-spine (2 leaves, 2 spines, a host per leaf) between namespaces, each switch a real-time switch
 * routing by the routes computed from the topology, as in the simulated world. RoCEv2 QP pairs from h0 to h1 are
 * chosen so that the leaves' ECMP hash (of the UDP source port the engine derives from the destination QPN) sends
 * one pair's WRITE over each spine; every byte arrives, and each spine's counters show exactly its pair's packets.
 */
@Tag("root")
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class RoutedLeafSpineRtTest {
    static final String YAML = FabricGenerator.leafSpine(new FabricGenerator.LeafSpine(2, 2, 1, 10_000_000_000L, 10_000_000_000L,
            1_000, 1_000), FabricSettings.hpcc(10_000_000_000L).withBuffer(1_000_000));
    /** Bytes the pair over spine s writes: different per spine, so a spine's count names the pair it carried. */
    static final int[] SIZE = {300 * 1024, 200 * 1024};

    @BeforeAll
    static void root() {
        RootAssumptions.assumeRoot();
    }

    /** Which uplink (0 or 1: ports 1, 2 of a leaf) {@code leaf} sends a RoCEv2 frame from {@code src} to {@code dst} with {@code sport} on. */
    static int uplink(Topology t, String leaf, Topology.Host src, int srcIp, Topology.Host dst, int dstIp, int sport) {
        int[] out = {-1};
        SwitchCore core = new SwitchCore(t.switchConfig(leaf), (port, b, o, l, s, e) -> out[0] = port, new SplittableRandom(1));
        UnsafeBuffer f = new UnsafeBuffer(new byte[128]);
        for (int i = 0; i < 6; i++) {
            f.putByte(i, (byte) (dst.mac() >>> (40 - 8 * i)));
            f.putByte(6 + i, (byte) (src.mac() >>> (40 - 8 * i)));
        }
        f.putShort(12, (short) 0x0800, ByteOrder.BIG_ENDIAN);
        f.putByte(14, (byte) 0x45);
        f.putShort(16, (short) 114, ByteOrder.BIG_ENDIAN);
        f.putByte(22, (byte) 64);
        f.putByte(23, (byte) 17);
        f.putInt(26, srcIp, ByteOrder.BIG_ENDIAN);
        f.putInt(30, dstIp, ByteOrder.BIG_ENDIAN);
        f.putShort(34, (short) sport, ByteOrder.BIG_ENDIAN);
        f.putShort(36, (short) 4791, ByteOrder.BIG_ENDIAN);
        f.putShort(38, (short) 94, ByteOrder.BIG_ENDIAN);
        long now = 1_000_000;
        core.onFrame(0, f, 0, 128, now);
        core.poll(Math.max(now + 100_000, core.poll(now)));
        assertTrue(out[0] == 1 || out[0] == 2, leaf + " routes " + src.name() + " -> " + dst.name() + " up, was port " + out[0]);
        return out[0] - 1;
    }

    static int ip(String cidr) {
        String[] q = cidr.split("/")[0].split("\\.");
        return Integer.parseInt(q[0]) << 24 | Integer.parseInt(q[1]) << 16 | Integer.parseInt(q[2]) << 8 | Integer.parseInt(q[3]);
    }

    @Test
    void aVerifiedRcWriteCrossesEachSpine() throws Exception {
        Topology t = TopologyParser.parse(YAML, "test topology");
        Topology.Host a = t.hosts().get("h0");
        Topology.Host b = t.hosts().get("h1");
        long region = SIZE[0] + SIZE[1];
        // the urdma ports' own addresses: one the kernel owned would answer each RoCEv2 frame with ICMP port unreachable
        String ipA = "10.1.0.1/8";
        String ipB = "10.1.0.2/8";
        try (UrdmaFabric f = new UrdmaFabric(YAML);
             UrdmaHost h0 = new UrdmaHost("h0", f.ns("h0"), a.mac(), ipA, FramingKind.ROCE2, c -> c.withLinkRate(10_000_000_000L),
                     region, null, 256, RateControl.none(), null);
             UrdmaHost h1 = new UrdmaHost("h1", f.ns("h1"), b.mac(), ipB, FramingKind.ROCE2, c -> c.withLinkRate(10_000_000_000L),
                     region, null, 256, RateControl.none(), null)) {
            // QPs on h1 until the data of one lands on each spine (leaf0's hash of its source port)
            QueuePair[] sender = new QueuePair[2];
            QueuePair[] receiver = new QueuePair[2];
            boolean[] ackSpine = new boolean[2];
            List<Integer> tried = new ArrayList<>();
            for (int i = 0; i < 64 && (receiver[0] == null || receiver[1] == null); i++) {
                QueuePair qa = h0.rcQp();
                QueuePair qb = h1.rcQp();
                int s = uplink(t, "leaf0", a, ip(ipA), b, ip(ipB), LinkFraming.udpSourcePort(qb.qpNum()));
                tried.add(qb.qpNum());
                if (receiver[s] == null) {
                    sender[s] = qa;
                    receiver[s] = qb;
                    ackSpine[uplink(t, "leaf1", b, ip(ipB), a, ip(ipA), LinkFraming.udpSourcePort(qa.qpNum()))] = true;
                }
            }
            assertTrue(receiver[0] != null && receiver[1] != null, "QPNs " + tried + " cover both spines");
            MemoryFabric.Connection c = MemoryFabric.Connection.defaults().withRetryCnt(7).withTimeout(16);
            long dst = 0;
            for (int s = 0; s < 2; s++) {
                UrdmaHost.fill(h0.mr.segment(), 0, SIZE[s], 7 + s);
                UrdmaHost.connect(h0, sender[s], h1, receiver[s], c);
                h0.postWrites(sender[s], h1.mr, dst, 1, SIZE[s]);
                h0.awaitCompletions(1, 20_000);
                assertEquals(-1, h0.mr.segment().asSlice(0, SIZE[s]).mismatch(h1.mr.segment().asSlice(dst, SIZE[s])),
                        "the bytes written over spine " + s);
                dst += SIZE[s];
            }
            f.stopSwitch();
            long resent = Stats.of(sender[0]).get(Counter.RETRANSMITTED_PKTS) + Stats.of(sender[1]).get(Counter.RETRANSMITTED_PKTS);
            assertEquals(0, resent, "no loss on an idle fabric");
            int mtu = PathMtu.ofBytes(h0.link.maxPayload()).bytes();
            String report = CounterReport.format(f.sw("spine0"), "") + "\n" + CounterReport.format(f.sw("spine1"), "");
            for (int s = 0; s < 2; s++) {
                RtSwitch spine = f.sw("spine" + s);
                long packets = (SIZE[s] + mtu - 1) / mtu;
                // a spine's port 0 faces leaf0: what it receives there is h0's data, and only the data of its pair
                assertEquals(packets, spine.core().counters(0).rxFrames, "spine" + s + " carried its pair's " + packets
                        + " data packets\n" + report);
                assertEquals(ackSpine[s], spine.core().counters(1).rxFrames > 0, "spine" + s + " carried ACKs as leaf1 hashes them\n"
                        + report);
                assertEquals(0, spine.core().counters(0).totalDrops() + spine.core().counters(1).totalDrops(), report);
            }
        }
    }
}
