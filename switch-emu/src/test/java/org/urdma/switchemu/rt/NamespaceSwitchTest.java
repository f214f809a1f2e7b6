package org.urdma.switchemu.rt;

import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.urdma.nativeio.AfPacketOptions;
import org.urdma.nativeio.AfPacketSocket;
import org.urdma.nativeio.netns.Netns;
import org.urdma.nativeio.netns.Topology;
import org.urdma.nativeio.netns.junit.RootAssumptions;
import org.urdma.switchemu.core.DropReason;
import org.urdma.switchemu.core.PortConfig;
import org.urdma.switchemu.core.SwitchConfig;
import org.urdma.switchemu.frame.Mac;
import org.urdma.switchemu.sim.Frames;
import org.urdma.transport.wire.MacControlFrame;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.atomic.AtomicBoolean;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Three hosts in their own namespaces, each joined by a veth to the switch namespace, where the
 * real-time switch runs over AF_PACKET ports. Real frames, real kernel, real time.
 */
class NamespaceSwitchTest {
    private static final int MTU = 1500;
    private static final int ETHERTYPE = 0x88B6;
    private static final long[] MACS = {0x02_00_00_00_0C_01L, 0x02_00_00_00_0C_02L, 0x02_00_00_00_0C_03L};

    private static Topology topo;
    private static final AfPacketSocket[] hosts = new AfPacketSocket[3];
    private static final AfPacketPort[] ports = new AfPacketPort[3];
    private static RealTimeSwitch sw;
    private static Thread agent;
    private static final AtomicBoolean running = new AtomicBoolean(true);
    private static final Arena arena = Arena.ofShared();

    @BeforeAll
    static void setUp() throws Exception {
        RootAssumptions.assumeRoot();
        topo = Topology.create();
        String swNs = topo.namespace("sw");
        topo.disableIpv6(swNs);
        for (int i = 0; i < 3; i++) {
            String ns = topo.namespace("h" + i);
            topo.disableIpv6(ns);
            topo.veth(ns, "eth0", swNs, "p" + i, Topology.LinkOptions.mtu(MTU).withMacs(Mac.toString(MACS[i]),
                "02:5e:00:00:00:0" + i));
            int port = i;
            hosts[i] = in(ns, () -> AfPacketSocket.open("eth0",
                AfPacketOptions.forMtu(MTU).version(AfPacketOptions.Version.V2)));
            ports[i] = in(swNs, () -> AfPacketPort.open("p" + port, MTU));
        }
        SwitchConfig config = new SwitchConfig();
        for (int i = 0; i < 3; i++) {
            config.port(new PortConfig().mac(0x02_5E_00_00_00_00L + i).rateBps(1_000_000_000L).pfcMask(0x08));
        }
        sw = new RealTimeSwitch("ns", config, ports, null, null, System::nanoTime, 1, 1024);
        agent = new Thread(() -> {
            while (running.get()) {
                if (sw.doWork() == 0) {
                    Thread.onSpinWait();
                    Thread.yield();
                }
            }
        }, "switch-agent");
        agent.setDaemon(true);
        agent.start();
    }

    @AfterAll
    static void tearDown() throws Exception {
        running.set(false);
        if (agent != null) {
            agent.join(5_000);
        }
        for (int i = 0; i < 3; i++) {
            if (hosts[i] != null) {
                hosts[i].close();
            }
            if (ports[i] != null) {
                ports[i].close();
            }
        }
        if (topo != null) {
            topo.close();
        }
    }

    private static <T> T in(String ns, Callable<T> c) throws Exception {
        return Netns.call(ns, c);
    }

    private static void send(int host, byte[] frame) {
        MemorySegment seg = arena.allocate(frame.length);
        MemorySegment.copy(frame, 0, seg, java.lang.foreign.ValueLayout.JAVA_BYTE, 0, frame.length);
        assertTrue(hosts[host].send(seg, frame.length) > 0);
    }

    /** Test frames (our EtherType, possibly VLAN-tagged) received by a host within {@code ms}. */
    private static List<byte[]> receive(int host, int expected, long ms) {
        List<byte[]> got = new ArrayList<>();
        long deadline = System.nanoTime() + ms * 1_000_000L;
        while (System.nanoTime() < deadline && (expected < 0 || got.size() < expected)) {
            hosts[host].pollIn(5);
            hosts[host].receive(f -> {
                if (f.etherType() == ETHERTYPE) {
                    byte[] b = f.toArray();
                    if (f.vlanValid()) {
                        b = retag(b, f.vlanTci());
                    }
                    got.add(b);
                }
            });
        }
        return got;
    }

    private static byte[] retag(byte[] f, int tci) {
        byte[] t = new byte[f.length + 4];
        System.arraycopy(f, 0, t, 0, 12);
        t[12] = (byte) 0x81;
        t[14] = (byte) (tci >> 8);
        t[15] = (byte) tci;
        System.arraycopy(f, 12, t, 16, f.length - 12);
        return t;
    }

    private static byte[] frame(int from, long to, int pcp, int seq) {
        byte[] f = Frames.ethernet(to, MACS[from], pcp, ETHERTYPE, 200);
        Frames.stamp(f, 7, seq, 0);
        return f;
    }

    @Test
    void floodsUnknownLearnsForwardsPreservesPcpAndNeverForwardsPfc() {
        // 1. h0 → h1 while h1 is unknown: flooded to h1 and h2
        for (int s = 0; s < 20; s++) {
            send(0, frame(0, MACS[1], 5, s));
        }
        List<byte[]> atH1 = receive(1, 20, 3_000);
        List<byte[]> atH2 = receive(2, 20, 3_000);
        assertEquals(20, atH1.size(), "delivered");
        assertEquals(20, atH2.size(), "unknown DA flooded");
        assertEquals(5, (atH1.get(0)[14] & 0xFF) >>> 5, "802.1Q PCP kept end to end");
        assertTrue(sw.core().counters(1).queueHighWater[5] > 0, "classified by PCP 5 (the port re-inserted the tag)");

        // 2. h1 answers: the switch learns it; h0 → h1 now reaches h1 only
        send(1, frame(1, MACS[0], 0, 0));
        assertEquals(1, receive(0, 1, 3_000).size());
        for (int s = 0; s < 20; s++) {
            send(0, frame(0, MACS[1], 0, 100 + s));
        }
        assertEquals(20, receive(1, 20, 3_000).size());
        assertEquals(0, receive(2, -1, 300).size(), "learned DA not flooded");
        assertEquals(1, sw.core().macTable().lookup(MACS[1], System.nanoTime()));
        assertEquals(0, sw.core().macTable().lookup(MACS[0], System.nanoTime()));

        // 3. PFC from h2 is consumed by the switch, never forwarded
        byte[] pfc = new byte[60];
        MacControlFrame.putPfc(new UnsafeBuffer(pfc), 0, MACS[2], 0x08, new int[]{0, 0, 0, 10, 0, 0, 0, 0});
        long before = sw.core().counters(2).pfcRx[3];
        send(2, pfc);
        long deadline = System.nanoTime() + 3_000_000_000L;
        while (sw.core().counters(2).pfcRx[3] == before && System.nanoTime() < deadline) {
            Thread.onSpinWait();
        }
        assertEquals(before + 1, sw.core().counters(2).pfcRx[3], "PFC received by the switch");
        List<byte[]> leaked = new ArrayList<>();
        for (int h = 0; h < 2; h++) {
            int host = h;
            long end = System.nanoTime() + 200_000_000L;
            while (System.nanoTime() < end) {
                hosts[host].pollIn(5);
                hosts[host].receive(f -> {
                    if (f.etherType() == 0x8808) {
                        leaked.add(f.toArray());
                    }
                });
            }
        }
        assertEquals(0, leaked.size(), "PFC never forwarded");
        assertEquals(0, sw.core().counters(2).drops(DropReason.MALFORMED));
    }
}
