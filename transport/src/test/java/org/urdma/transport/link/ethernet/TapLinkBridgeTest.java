package org.urdma.transport.link.ethernet;

import static org.junit.jupiter.api.Assertions.*;

import java.nio.file.Path;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.urdma.nativeio.NetInterface;
import org.urdma.nativeio.TapDevice;
import org.urdma.nativeio.netns.Netns;
import org.urdma.nativeio.netns.Topology;
import org.urdma.nativeio.netns.junit.RootAssumptions;
import org.urdma.transport.driver.MemoryFabric;
import org.urdma.transport.pcap.PcapWriter;
import org.urdma.transport.port.PortIdentity;
import org.urdma.transport.wire.FramingKind;
import org.urdma.verbs.PathMtu;
import org.urdma.verbs.QpType;

/** Two devices on two TAP devices joined by a Linux bridge inside a namespace: the same RC traffic as over veth. */
@Tag("root")
class TapLinkBridgeTest {
    static final byte[] MAC_A = PortIdentity.parseMac("02:00:00:bb:00:01");
    static final byte[] MAC_B = PortIdentity.parseMac("02:00:00:bb:00:02");

    @BeforeAll
    static void root() {
        RootAssumptions.assumeRoot();
    }

    @ParameterizedTest
    @EnumSource(value = FramingKind.class, names = {"ROCE1", "ROCE2"})
    void rcTrafficCrossesABridgeBetweenTwoTaps(FramingKind kind, @TempDir Path dir) throws Exception {
        Path pcap = dir.resolve("tap.pcap");
        try (Topology topo = Topology.create()) {
            String ns = topo.namespace("br");
            topo.disableIpv6(ns);
            TapDevice ta = Netns.call(ns, () -> TapDevice.open("tapa"));
            TapDevice tb = null;
            Port a = null, b = null;
            try {
                tb = Netns.call(ns, () -> TapDevice.open("tapb"));
                topo.bridge(ns, "br0");
                for (String t : new String[] {"tapa", "tapb"}) {
                    topo.setMtu(ns, t, 9000);
                    topo.attach(ns, t, "br0");
                    topo.up(ns, t);
                }
                int mtu = Netns.call(ns, () -> NetInterface.lookup("tapa").mtu());
                TapLink la = new TapLink(ta, EthernetLinkConfig.of(kind, PortIdentity.of(MAC_A, "10.79.0.11/24")), mtu, true);
                TapLink lb = new TapLink(tb, EthernetLinkConfig.of(kind, PortIdentity.of(MAC_B, "10.79.0.12/24")), mtu, true);
                assertEquals(4096, la.maxPayload());
                a = new Port("a", la, la.datapath(), QpType.RC, 1 << 20, 3);
                b = new Port("b", lb, lb.datapath(), QpType.RC, 1 << 20, 4);
                PcapWriter w = new PcapWriter(pcap);
                Port pa = a;
                a.device.control(() -> {
                    pa.datapath.capture(w, System.currentTimeMillis() * 1_000_000 - System.nanoTime());
                    return null;
                });
                var ea = a.endpoint();
                var eb = b.endpoint();
                var c = MemoryFabric.Connection.defaults().withMtu(PathMtu.MTU_4096);
                a.connect(eb, c);
                b.connect(ea, c);
                AfPacketLinkVethTest.exerciseRc(a, b);
                a.device.control(() -> {
                    pa.datapath.closeCapture();
                    return null;
                });
                assertEquals(0, la.counters().rxMalformed(), la.counters().toString());
                assertEquals(0, lb.counters().rxMalformed(), lb.counters().toString());
                assertTrue(lb.counters().rxFrames() > 25, lb.counters().toString());
            } finally {
                if (a != null) a.close();
                else ta.close();
                if (b != null) b.close();
                else if (tb != null) tb.close();
            }
        }
        AfPacketLinkVethTest.assertCaptureDecodes(pcap, kind);
    }
}
