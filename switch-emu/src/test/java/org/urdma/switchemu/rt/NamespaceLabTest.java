package org.urdma.switchemu.rt;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.urdma.nativeio.netns.Netns;
import org.urdma.nativeio.netns.junit.RootAssumptions;
import org.urdma.switchemu.topo.Topology;
import org.urdma.switchemu.topo.TopologyParser;
import org.urdma.transport.pcap.PcapReader;

import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.DatagramChannel;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** A topology file brought up in namespaces; the kernels' own IP/ARP traffic crosses the emulated switch. */
class NamespaceLabTest {
    private static final String TOPO = """
        hosts:
          - {name: h1, mac: "02:00:00:00:0e:01", ip: 10.9.0.1/24}
          - {name: h2, mac: "02:00:00:00:0e:02", ip: 10.9.0.2/24}
        switches:
          - {name: s1, pipelineDelay: 500ns}
        links:
          - {endpoints: [h1, s1], rate: 1G}
          - endpoints: [h2, s1]
            rate: 1G
            impairBtoA: {delay: 2ms}
        """;

    @TempDir
    Path pcaps;

    @Test
    void udpBetweenHostsGoesThroughTheSwitchWithArpFloodedAndLearned() throws Exception {
        RootAssumptions.assumeRoot();
        Topology topology = TopologyParser.parse(TOPO, "lab.yaml");
        String[] names = new String[2];
        try (NamespaceLab lab = NamespaceLab.up(topology, 1, pcaps)) {
            names[0] = lab.namespace("h1");
            names[1] = lab.namespace("s1");
            assertTrue(lab.impairmentSummary().startsWith("impairment: switch emulator"));
            DatagramChannel rx = Netns.call(lab.namespace("h2"), () -> DatagramChannel.open(java.net.StandardProtocolFamily.INET).bind(new InetSocketAddress("10.9.0.2", 5000)));
            DatagramChannel tx = Netns.call(lab.namespace("h1"), () -> DatagramChannel.open(java.net.StandardProtocolFamily.INET));
            try (rx; tx) {
                rx.configureBlocking(false);
                int received = 0;
                long start = System.nanoTime();
                long firstRtt = -1;
                ByteBuffer buf = ByteBuffer.allocate(100);
                for (int i = 0; i < 20 && System.nanoTime() - start < 10_000_000_000L; ) {
                    tx.send(ByteBuffer.wrap(("hello " + i).getBytes()), new InetSocketAddress("10.9.0.2", 5000));
                    long sent = System.nanoTime();
                    while (System.nanoTime() - sent < 500_000_000L) {
                        buf.clear();
                        if (rx.receive(buf) != null) {
                            received++;
                            if (firstRtt < 0) {
                                firstRtt = System.nanoTime() - start;
                            }
                            break;
                        }
                        Thread.sleep(1);
                    }
                    i++;
                }
                assertEquals(20, received, "every datagram arrived");
                // the first needed ARP: request flooded, reply back through the 2 ms impaired direction
                assertTrue(firstRtt >= 2_000_000, "ARP reply delayed by the impairment: " + firstRtt);
            }
            RealTimeSwitch sw = lab.switchAgent("s1");
            assertEquals(0, sw.core().macTable().lookup(0x02_00_00_00_0E_01L, System.nanoTime()));
            assertEquals(1, sw.core().macTable().lookup(0x02_00_00_00_0E_02L, System.nanoTime()));
            assertTrue(sw.core().counters(0).rxFrames >= 21, "ARP + 20 datagrams from h1");
        }
        int records = 0;
        try (PcapReader r = new PcapReader(pcaps.resolve("s1-p0.pcap"))) {
            while (r.next()) {
                records++;
            }
        }
        assertTrue(records >= 22, "port 0 capture: ARP request + 20 datagrams in, ARP reply out: " + records);
        assertFalse(Netns.exists(names[0]), "close removed the host namespace");
        assertFalse(Netns.exists(names[1]), "close removed the switch namespace");
    }
}
