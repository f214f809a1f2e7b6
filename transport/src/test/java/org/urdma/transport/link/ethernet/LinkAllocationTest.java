package org.urdma.transport.link.ethernet;

import static org.junit.jupiter.api.Assertions.*;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.management.ManagementFactory;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.urdma.nativeio.AfPacketOptions;
import org.urdma.nativeio.NetInterface;
import org.urdma.nativeio.TapDevice;
import org.urdma.nativeio.netns.Netns;
import org.urdma.nativeio.netns.Topology;
import org.urdma.nativeio.netns.junit.RootAssumptions;
import org.urdma.transport.packet.Link;
import org.urdma.transport.packet.PacketSink;
import org.urdma.transport.packet.Route;
import org.urdma.transport.packet.RxPacket;
import org.urdma.transport.packet.TxPacket;
import org.urdma.transport.port.GidTable;
import org.urdma.transport.port.PortIdentity;
import org.urdma.transport.wire.FramingKind;

/** Once warm, sending (encode into the TX slot, flush) and receiving (decode in the RX slot) allocate nothing. */
@Tag("root")
class LinkAllocationTest {
    static final byte[] MAC_A = PortIdentity.parseMac("02:00:00:cc:00:01");
    static final byte[] MAC_B = PortIdentity.parseMac("02:00:00:cc:00:02");

    @BeforeAll
    static void root() {
        RootAssumptions.assumeRoot();
    }

    static final class Counting implements PacketSink {
        long packets, bytes;

        @Override
        public void onPacket(RxPacket p, long now) {
            packets++;
            bytes += p.payloadLength();
        }
    }

    /** Bytes this thread allocated in the best window of {@code rounds} × 16 frames A → B. */
    static long allocatedPerRun(Link a, Link b, EthernetDatapath da, EthernetDatapath db, int rounds) {
        return allocatedPerRun(a, b, da, db, rounds, null);
    }

    /** As above; B's receive loop idles through {@code idle} between empty receives (null: spins). */
    static long allocatedPerRun(Link a, Link b, EthernetDatapath da, EthernetDatapath db, int rounds,
                                org.agrona.concurrent.IdleStrategy idle) {
        Arena arena = Arena.ofShared();
        MemorySegment payload = arena.allocate(4096, 64);
        UnsafeBuffer data = new UnsafeBuffer(payload.address(), 4096);
        Route route = new Route().set(db.config().port().mac(), db.gids().gidFor(db.config().framing()).toBytes());
        int psn = 0;
        Counting sink = new Counting();
        var mx = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        long tid = Thread.currentThread().threadId();
        long best = Long.MAX_VALUE;
        // the JIT compiles in the background (and only C2 removes the JDK's per-downcall errno-capture slice):
        // take the best of several windows as the steady state (on a busy machine C2's queue is long: up to 100 windows,
        // a few seconds; a quiet one reaches 0 within the first few)
        for (int run = 0; run < 100 && best > 0; run++) {
            long before = mx.getThreadAllocatedBytes(tid);
            for (int r = 0; r < rounds; r++) {
                long now = System.nanoTime();
                long want = sink.packets + 16;
                for (int i = 0; i < 16; i++) {
                    psn = (psn + 1) & 0xFFFFFF;
                    TxPacket t;
                    while ((t = a.claim(0x0A, 1024, route, now)) == null) a.flush(now); // RDMA WRITE ONLY
                    t.start(0x0A, 0x123, psn, false, false).reth(0x1000, 7, 1024).payload(data, 0, 1024);
                    a.commit(t, route, now);
                }
                a.flush(now);
                long end = System.nanoTime() + 1_000_000_000L;
                while (sink.packets < want && System.nanoTime() < end) {
                    int n = b.receive(System.nanoTime(), sink, 256);
                    if (idle != null) idle.idle(n);
                }
                if (sink.packets != want) fail("frames lost: " + db.counters());
            }
            long used = mx.getThreadAllocatedBytes(tid) - before;
            if (run > 0) best = Math.min(best, used); // run 0 warms up
        }
        arena.close();
        return best;
    }

    @Test
    void afPacketSendAndReceiveAllocateNothingOnceWarm() throws Exception {
        try (Topology t = Topology.create()) {
            String na = t.namespace("a"), nb = t.namespace("b");
            t.veth(na, "eth0", nb, "eth0", Topology.LinkOptions.mtu(1500));
            t.disableIpv6(na);
            t.disableIpv6(nb);
            var ca = EthernetLinkConfig.of(FramingKind.ROCE2, PortIdentity.of(MAC_A, "10.80.0.1/24")).withVlan(0, 3);
            var cb = EthernetLinkConfig.of(FramingKind.ROCE2, PortIdentity.of(MAC_B, "10.80.0.2/24")).withVlan(0, 3);
            try (AfPacketLink a = Netns.call(na, () -> AfPacketLink.open("eth0", ca, AfPacketOptions.Version.V2));
                 AfPacketLink b = Netns.call(nb, () -> AfPacketLink.open("eth0", cb, AfPacketOptions.Version.V2))) {
                // veth's MAC differs from the port MAC here: the engine filters on its own MAC, so give B's veth B's MAC
                long bytes = allocatedPerRun(a, b, a.datapath(), b.datapath(), 500);
                assertTrue(bytes < 1024, bytes + " bytes allocated for 8000 frames sent and received");
                assertEquals(3, b.counters().lastRxPcp());
            }
        }
    }

    /** The receiver sleeping in poll(2) between frames (perf --idle poll) allocates nothing either. */
    @Test
    void afPacketReceiveIdlingInPollAllocatesNothingOnceWarm() throws Exception {
        try (Topology t = Topology.create()) {
            String na = t.namespace("a"), nb = t.namespace("b");
            t.veth(na, "eth0", nb, "eth0", Topology.LinkOptions.mtu(1500));
            t.disableIpv6(na);
            t.disableIpv6(nb);
            var ca = EthernetLinkConfig.of(FramingKind.ROCE2, PortIdentity.of(MAC_A, "10.80.1.1/24"));
            var cb = EthernetLinkConfig.of(FramingKind.ROCE2, PortIdentity.of(MAC_B, "10.80.1.2/24"));
            try (AfPacketLink a = Netns.call(na, () -> AfPacketLink.open("eth0", ca, AfPacketOptions.Version.V2));
                 AfPacketLink b = Netns.call(nb, () -> AfPacketLink.open("eth0", cb, AfPacketOptions.Version.V2))) {
                long bytes = allocatedPerRun(a, b, a.datapath(), b.datapath(), 300, b.pollIdleStrategy(0, 1));
                assertTrue(bytes < 1024, bytes + " bytes allocated for 4800 frames sent and received");
            }
        }
    }

    @Test
    void tapSendAndReceiveAllocateNothingOnceWarm() throws Exception {
        try (Topology t = Topology.create()) {
            String ns = t.namespace("br");
            t.disableIpv6(ns);
            TapDevice ta = Netns.call(ns, () -> TapDevice.open("tapa"));
            TapDevice tb = Netns.call(ns, () -> TapDevice.open("tapb"));
            t.bridge(ns, "br0");
            for (String n : new String[] {"tapa", "tapb"}) {
                t.attach(ns, n, "br0");
                t.up(ns, n);
            }
            int mtu = Netns.call(ns, () -> NetInterface.lookup("tapa").mtu());
            try (TapLink a = new TapLink(ta, EthernetLinkConfig.of(FramingKind.ROCE1, PortIdentity.ofMac(MAC_A)), mtu, true);
                 TapLink b = new TapLink(tb, EthernetLinkConfig.of(FramingKind.ROCE1, PortIdentity.ofMac(MAC_B)), mtu, true)) {
                allocatedPerRun(a, b, a.datapath(), b.datapath(), 20); // teach the bridge where B is (first frames flood)
                long bytes = allocatedPerRun(a, b, a.datapath(), b.datapath(), 300);
                assertTrue(bytes < 1024, bytes + " bytes allocated for 4800 frames sent and received");
                assertEquals(0, GidTable.ROCE_V1_INDEX);
            }
        }
    }
}
