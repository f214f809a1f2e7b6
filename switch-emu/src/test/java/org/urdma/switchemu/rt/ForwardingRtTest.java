package org.urdma.switchemu.rt;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.urdma.switchemu.capture.SwitchCapture;

import java.nio.file.Files;
import java.nio.file.Path;
import org.urdma.nativeio.netns.Netns;
import org.urdma.nativeio.netns.junit.RootAssumptions;
import org.urdma.switchemu.core.MacTable;
import org.urdma.switchemu.core.PortCounters;

import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Hosts in namespaces through one real-time switch: delivery, learning, flooding, PFC never forwarded. */
@Tag("root")
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ForwardingRtTest {
    static final long H1 = 0x02_00_00_00_00_01L;
    static final long H2 = 0x02_00_00_00_00_02L;
    static final long H3 = 0x02_00_00_00_00_03L;
    static final long BROADCAST = 0xFFFF_FFFF_FFFFL;

    static String star(int hosts) {
        StringBuilder y = new StringBuilder("hosts:\n");
        for (int i = 1; i <= hosts; i++) {
            y.append("  - {name: h").append(i).append(", mac: \"02:00:00:00:00:0").append(i).append("\", ip: 10.9.0.")
                .append(i).append("/24}\n");
        }
        y.append("switches:\n  - {name: s1, pfc: [3]}\nlinks:\n");
        for (int i = 1; i <= hosts; i++) {
            y.append("  - {endpoints: [h").append(i).append(", s1], rate: 10G}\n");
        }
        return y.toString();
    }

    @BeforeAll
    static void root() {
        RootAssumptions.assumeRoot();
    }

    @Test
    void twoHostsExchangeFramesAndTheSwitchLearnsBothMacs(@TempDir Path pcaps) throws Exception {
        try (RtFabric f = new RtFabric(star(2), "s1", RtOptions.defaults().pcapDir(pcaps))) {
            TestHost h1 = f.host("h1");
            TestHost h2 = f.host("h2");
            for (int i = 0; i < 100; i++) {
                h1.send(TestHost.frame(H2, H1, -1, 200, i));
            }
            List<byte[]> at2 = h2.await(TestHost::isTest, 100, 3000);
            for (int i = 0; i < 100; i++) {
                h2.send(TestHost.frame(H1, H2, 5, 1000, i));
            }
            List<byte[]> at1 = h1.await(TestHost::isTest, 100, 3000);
            f.stopSwitch();
            assertEquals(100, at2.size(), "h1 -> h2 delivered");
            assertEquals(100, at1.size(), "h2 -> h1 delivered");
            for (int i = 0; i < 100; i++) {
                assertEquals(i, TestHost.seq(at2.get(i)), "in order");
                assertEquals(200, at2.get(i).length);
                assertEquals(1000, at1.get(i).length, "the 802.1Q tag stripped by veth is put back on egress");
                assertEquals(5, TestHost.pcp(at1.get(i)));
            }
            MacTable table = f.sw().core().macTable();
            assertEquals(0, table.lookup(H1, System.nanoTime()));
            assertEquals(1, table.lookup(H2, System.nanoTime()));
            assertEquals(0, f.sw().core().counters(0).totalDrops() + f.sw().core().counters(1).totalDrops());
            assertEquals(100, f.sw().core().counters(1).rxFrames);
            // --pcap: per port, what it received and sent (24-byte file header, 16-byte record headers)
            assertEquals(24 + 100 * 16 + 100 * 200 + 100 * 16 + 100 * 1000,
                Files.size(SwitchCapture.file(pcaps, "s1", 0)), "p0: 100 in from h1, 100 out to h1");
            assertEquals(Files.size(SwitchCapture.file(pcaps, "s1", 0)), Files.size(SwitchCapture.file(pcaps, "s1", 1)));
        }
    }

    @Test
    void unknownDestinationIsFloodedLearnedOnesAreNotAndPfcIsNeverForwarded() throws Exception {
        try (RtFabric f = new RtFabric(star(3), "s1", RtOptions.defaults())) {
            TestHost h1 = f.host("h1");
            TestHost h2 = f.host("h2");
            TestHost h3 = f.host("h3");
            // h1 -> h2 before h2 has spoken: flooded to h2 and h3
            for (int i = 0; i < 10; i++) {
                h1.send(TestHost.frame(H2, H1, -1, 100, i));
            }
            assertEquals(10, h2.await(TestHost::isTest, 10, 3000).size());
            assertEquals(10, h3.await(TestHost::isTest, 10, 3000).size(), "unknown unicast DA flooded");
            // h2 answers (h1 is known: only h1 gets it), and is learned
            h2.send(TestHost.frame(H1, H2, -1, 100, 100));
            assertEquals(1, h1.await(TestHost::isTest, 1, 3000).size());
            // h1 -> h2 again: now to port 1 only
            for (int i = 0; i < 10; i++) {
                h1.send(TestHost.frame(H2, H1, -1, 100, 200 + i));
            }
            assertEquals(10, h2.await(TestHost::isTest, 10, 3000).size());
            // a PFC frame from h1 (pausing priority 3 briefly) and a frame to a reserved DA: consumed, never forwarded
            byte[] pfc = pfc(H1, 0x08, 1);
            h1.send(pfc);
            byte[] lldp = TestHost.frame(0x0180_C200_000EL, H1, -1, 60, 300);
            h1.send(lldp);
            // broadcast from h3 reaches h1 and h2
            h3.send(TestHost.frame(BROADCAST, H3, -1, 64, 400));
            List<byte[]> b1 = h1.await(TestHost::isTest, 1, 3000);
            List<byte[]> b2 = h2.await(TestHost::isTest, 1, 3000);
            assertEquals(1, b1.size());
            assertEquals(400, TestHost.seq(b1.get(0)));
            assertEquals(400, TestHost.seq(b2.get(0)));
            Thread.sleep(100);
            List<byte[]> late3 = h3.drain();
            List<byte[]> late2 = h2.drain();
            f.stopSwitch();
            assertTrue(late3.stream().noneMatch(TestHost::isTest), "nothing more reached h3 (learned DA, reserved DA)");
            assertTrue(late3.stream().noneMatch(TestHost::isMacControl), "PFC frame not forwarded to h3");
            assertTrue(late2.stream().noneMatch(TestHost::isMacControl), "PFC frame not forwarded to h2");
            assertTrue(late2.stream().noneMatch(TestHost::isTest));
            PortCounters p0 = f.sw().core().counters(0);
            assertEquals(1, p0.pfcRx[3], "the PFC frame was consumed by the switch");
            assertEquals(1, p0.drops(org.urdma.switchemu.core.DropReason.RESERVED_DA));
            MacTable table = f.sw().core().macTable();
            long now = System.nanoTime();
            assertEquals(0, table.lookup(H1, now));
            assertEquals(1, table.lookup(H2, now));
            assertEquals(2, table.lookup(H3, now));
        }
    }

    @Test
    void kernelTcpBetweenHostsCrossesTheSwitchIntact() throws Exception {
        try (RtFabric f = new RtFabric(star(2), "s1", RtOptions.defaults())) {
            java.net.ServerSocket server = Netns.call(f.network.namespace("h2"),
                () -> new java.net.ServerSocket(9100, 1, java.net.InetAddress.getByName("10.9.0.2")));
            byte[] data = new byte[1 << 20];
            new java.util.SplittableRandom(3).nextBytes(data);
            byte[][] got = new byte[1][];
            Thread rx = Thread.ofPlatform().start(() -> {
                try (server; java.net.Socket s = server.accept()) {
                    got[0] = s.getInputStream().readAllBytes();
                } catch (java.io.IOException e) {
                    got[0] = new byte[0];
                }
            });
            // a Java socket gets its descriptor at connect: connect inside h1's namespace
            try (java.net.Socket c = Netns.call(f.network.namespace("h1"), () -> {
                java.net.Socket s = new java.net.Socket();
                s.connect(new java.net.InetSocketAddress("10.9.0.2", 9100), 5000);
                return s;
            })) {
                c.getOutputStream().write(data);
            }
            rx.join(20_000);
            f.stopSwitch();
            assertTrue(java.util.Arrays.equals(data, got[0]), "1 MB over TCP (checksums complete, no 64 KB GSO frames)");
            assertEquals(0, f.sw().core().counters(0).totalDrops() + f.sw().core().counters(1).totalDrops());
        }
    }

    /** An 802.1Qbb frame from {@code sa}: class-enable vector, the same quanta for every enabled priority. */
    static byte[] pfc(long sa, int enable, int quanta) {
        byte[] f = new byte[60];
        java.nio.ByteBuffer b = java.nio.ByteBuffer.wrap(f);
        TestHost.putMac(b, 0x0180_C200_0001L);
        TestHost.putMac(b, sa);
        b.putShort((short) 0x8808).putShort((short) 0x0101).putShort((short) enable);
        for (int p = 0; p < 8; p++) {
            b.putShort((short) ((enable & (1 << p)) != 0 ? quanta : 0));
        }
        return f;
    }
}
