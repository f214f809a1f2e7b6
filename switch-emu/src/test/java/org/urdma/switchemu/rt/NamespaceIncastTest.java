package org.urdma.switchemu.rt;

import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.AfterEach;
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
import java.lang.foreign.ValueLayout;
import java.util.BitSet;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Incast 2→1 through the real-time switch between namespaces, a lossless priority 3. The switch ports run
 * at 10 Mbit/s; each sender offers bursts of frames in one TX-ring flush, so the overload holds even on
 * a busy machine. Before each burst a sender reads the PFC frames arriving on its veth and waits out a
 * pause, as a NIC would; the headroom absorbs what is already in flight.
 */
class NamespaceIncastTest {
    private static final int MTU = 1500;
    private static final int ETHERTYPE = 0x88B6;
    private static final long[] MACS = {0x02_00_00_00_0D_01L, 0x02_00_00_00_0D_02L, 0x02_00_00_00_0D_03L};
    private static final long RATE = 10_000_000L;
    private static final int FRAMES = 600;
    private static final int SIZE = 1000;

    private Topology topo;
    private final AfPacketSocket[] hosts = new AfPacketSocket[3];
    private final AfPacketPort[] ports = new AfPacketPort[3];
    private Thread agent;
    private final AtomicBoolean running = new AtomicBoolean(true);
    private RealTimeSwitch sw;

    private void build(int pfcMask, long bufferBytes) throws Exception {
        RootAssumptions.assumeRoot();
        topo = Topology.create();
        String swNs = topo.namespace("sw");
        topo.disableIpv6(swNs);
        for (int i = 0; i < 3; i++) {
            String ns = topo.namespace("h" + i);
            topo.disableIpv6(ns);
            topo.veth(ns, "eth0", swNs, "p" + i, Topology.LinkOptions.mtu(MTU).withMacs(Mac.toString(MACS[i]),
                "02:5e:00:00:01:0" + i));
            int port = i;
            hosts[i] = Netns.call(ns, () -> AfPacketSocket.open("eth0", AfPacketOptions.forMtu(MTU)
                .version(AfPacketOptions.Version.V2).rxRing(1 << 20, 16, 2048, 1)));
            ports[i] = Netns.call(swNs, () -> AfPacketPort.open("p" + port, MTU));
        }
        SwitchConfig config = new SwitchConfig().bufferBytes(bufferBytes).reserveBytes(1_500).dtAlpha(1)
            .resumeOffsetBytes(10_000);
        for (int i = 0; i < 3; i++) {
            config.port(new PortConfig().mac(0x02_5E_00_00_01_00L + i).rateBps(RATE).pfcMask(pfcMask)
                .headroomBytes(300_000));
        }
        sw = new RealTimeSwitch("incast", config, ports, null, null, System::nanoTime, 1, 1024);
        sw.core().addStaticMac(MACS[2], 2);
        agent = new Thread(() -> {
            while (running.get()) {
                if (sw.doWork() == 0) {
                    Thread.yield();
                }
            }
        }, "switch-agent");
        agent.setDaemon(true);
        agent.start();
    }

    @AfterEach
    void tearDown() throws Exception {
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

    /** Runs both senders (paced at 1 Gbit/s each, honouring PFC) and the receiver; returns frames delivered. */
    private int runIncast(Set<Integer> vectorsAtSenders, long[] pausedPolls) {
        MemorySegment[] frames = new MemorySegment[2];
        Arena arena = Arena.ofConfined();
        for (int s = 0; s < 2; s++) {
            byte[] f = Frames.ethernet(MACS[2], MACS[s], 3, ETHERTYPE, SIZE);
            frames[s] = arena.allocate(f.length);
            MemorySegment.copy(f, 0, frames[s], ValueLayout.JAVA_BYTE, 0, f.length);
        }
        int[] sent = new int[2];
        long[] pausedUntil = new long[2];
        long[] nextSend = new long[2];
        BitSet[] got = {new BitSet(), new BitSet()};
        int burst = 40;
        long start = System.nanoTime();
        long lastRx = System.nanoTime();
        while (System.nanoTime() - start < 20_000_000_000L) {
            long now = System.nanoTime();
            for (int s = 0; s < 2; s++) {
                int sender = s;
                long t = now;
                hosts[s].receive(f -> {
                    if (MacControlFrame.isPfc(new UnsafeBuffer(f.address(), f.length()), 0, f.length())) {
                        UnsafeBuffer b = new UnsafeBuffer(f.address(), f.length());
                        int vector = MacControlFrame.classEnable(b, 0);
                        vectorsAtSenders.add(vector);
                        if ((vector & 0x08) != 0) {
                            int q = MacControlFrame.pfcQuanta(b, 0, 3);
                            pausedUntil[sender] = q == 0 ? 0 : t + MacControlFrame.quantaToNanos(q, RATE);
                        }
                    }
                });
                if (sent[s] < FRAMES && now >= nextSend[s]) {
                    if (now < pausedUntil[s]) {
                        pausedPolls[0] += 1;
                    } else {
                        for (int k = 0; k < burst && sent[s] < FRAMES; k++) {
                            frames[s].set(ValueLayout.JAVA_INT_UNALIGNED.withOrder(java.nio.ByteOrder.BIG_ENDIAN), SIZE - 12,
                                sent[s]);
                            if (!hosts[s].txOffer(frames[s], 0, SIZE)) {
                                break;
                            }
                            sent[s]++;
                        }
                        hosts[s].flush();
                        // next burst after the time the switch needs for this one at its port rate
                        nextSend[s] = now + burst * SIZE * 8L * 1_000_000_000L / RATE / 2;
                    }
                }
            }
            int n = hosts[2].receive(f -> {
                if (f.etherType() == ETHERTYPE && f.length() >= SIZE - 4) {
                    long src = Mac.read(new UnsafeBuffer(f.address(), f.length()), 6);
                    int seq = new UnsafeBuffer(f.address(), f.length()).getInt(f.length() - 12, java.nio.ByteOrder.BIG_ENDIAN);
                    got[src == MACS[0] ? 0 : 1].set(seq);
                }
            });
            if (n > 0) {
                lastRx = now;
            }
            if (sent[0] == FRAMES && sent[1] == FRAMES) {
                if (got[0].cardinality() + got[1].cardinality() == 2 * FRAMES || now - lastRx > 3_000_000_000L) {
                    break;
                }
            }
        }
        arena.close();
        return got[0].cardinality() + got[1].cardinality();
    }

    @Test
    void withPfcTheIncastIsLosslessAndTheSendersSeeClass3Pfc() throws Exception {
        build(0x08, 1_200_000);
        Set<Integer> vectors = new HashSet<>();
        long[] paused = {0};
        int delivered = runIncast(vectors, paused);
        long drops = 0;
        for (int p = 0; p < 3; p++) {
            drops += sw.core().counters(p).totalDrops();
        }
        assertTrue(sw.core().counters(0).pfcTx[3] > 0 && sw.core().counters(1).pfcTx[3] > 0, "switch sent PFC to both senders");
        assertEquals(Set.of(0x08), vectors, "PFC frames on the senders' links enable class 3 only");
        assertTrue(paused[0] > 0, "the senders were paused");
        assertEquals(0, drops, "no switch drops with PFC");
        assertEquals(2 * FRAMES, delivered, "every frame delivered");
    }

    @Test
    void withoutPfcTheSwitchDropsAndCountsIt() throws Exception {
        build(0, 100_000);
        Set<Integer> vectors = new HashSet<>();
        int delivered = runIncast(vectors, new long[1]);
        long drops = sw.core().counters(0).drops(DropReason.SHARED_THRESHOLD)
            + sw.core().counters(1).drops(DropReason.SHARED_THRESHOLD);
        assertTrue(drops > 0, "drops counted");
        assertTrue(delivered < 2 * FRAMES);
        assertTrue(vectors.isEmpty(), "no PFC without PFC");
    }
}
