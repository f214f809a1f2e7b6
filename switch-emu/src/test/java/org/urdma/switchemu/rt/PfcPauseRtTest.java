package org.urdma.switchemu.rt;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.urdma.nativeio.netns.junit.RootAssumptions;
import org.urdma.switchemu.core.PortCounters;

import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A PFC frame injected into a switch port stops that port's egress queue for the paused priority
 * only, while another priority keeps flowing; XON (time 0) releases it. The link to h2 runs at
 * 100 Mbit/s, so 65535 quanta are 335 ms.
 */
@Tag("root")
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class PfcPauseRtTest {
    static final long H1 = 0x02_00_00_00_00_01L;
    static final long H2 = 0x02_00_00_00_00_02L;
    static final String TOPOLOGY = """
        hosts:
          - {name: h1, mac: "02:00:00:00:00:01", ip: 10.9.0.1/24}
          - {name: h2, mac: "02:00:00:00:00:02", ip: 10.9.0.2/24}
        switches:
          - {name: s1, pfc: [3], classify: pcp}
        links:
          - {endpoints: [h1, s1], rate: 10G}
          - {endpoints: [s1, h2], rate: 100M}
        """;

    @BeforeAll
    static void root() {
        RootAssumptions.assumeRoot();
    }

    @Test
    void pfcForPriority3StopsOnlyPriority3UntilXon() throws Exception {
        try (RtFabric f = new RtFabric(TOPOLOGY, "s1", RtOptions.defaults())) {
            TestHost h1 = f.host("h1");
            TestHost h2 = f.host("h2");
            h2.send(TestHost.frame(0xFFFF_FFFF_FFFFL, H2, -1, 60, -1));
            assertEquals(1, h1.await(TestHost::isTest, 1, 2000).size());
            h2.send(ForwardingRtTest.pfc(H2, 0x08, 65535));
            Thread.sleep(10);
            for (int i = 0; i < 20; i++) {
                h1.send(TestHost.frame(H2, H1, 3, 100, 300 + i));
                h1.send(TestHost.frame(H2, H1, 1, 100, 100 + i));
            }
            List<byte[]> during = h2.await(TestHost::isTest, 40, 150);
            h2.send(ForwardingRtTest.pfc(H2, 0x08, 0));
            List<byte[]> after = h2.await(TestHost::isTest, 20, 2000);
            f.stopSwitch();
            assertEquals(20, during.size(), "priority 1 flows while 3 is paused");
            assertTrue(during.stream().allMatch(b -> TestHost.pcp(b) == 1), "nothing of priority 3 during the pause");
            assertEquals(20, after.size(), "XON releases priority 3");
            for (int i = 0; i < 20; i++) {
                assertEquals(3, TestHost.pcp(after.get(i)));
                assertEquals(300 + i, TestHost.seq(after.get(i)));
            }
            PortCounters p1 = f.sw().core().counters(1);
            assertEquals(2, p1.pfcRx[3]);
            assertTrue(p1.queueHighWater[3] >= 20 * 100, "priority 3 waited in the egress queue");
            assertEquals(0, p1.pfcRx[1]);
        }
    }

    @Test
    void pausePausesEveryPriority() throws Exception {
        try (RtFabric f = new RtFabric(TOPOLOGY, "s1", RtOptions.defaults())) {
            TestHost h1 = f.host("h1");
            TestHost h2 = f.host("h2");
            h2.send(TestHost.frame(0xFFFF_FFFF_FFFFL, H2, -1, 60, -1));
            assertEquals(1, h1.await(TestHost::isTest, 1, 2000).size());
            byte[] pause = ForwardingRtTest.pfc(H2, 0, 0);
            pause[14] = 0x00; // opcode 0x0001: 802.3x PAUSE, one time field
            pause[15] = 0x01;
            pause[16] = (byte) 0xFF;
            pause[17] = (byte) 0xFF;
            h2.send(pause);
            Thread.sleep(10);
            for (int i = 0; i < 10; i++) {
                h1.send(TestHost.frame(H2, H1, 3, 100, 300 + i));
                h1.send(TestHost.frame(H2, H1, 1, 100, 100 + i));
            }
            List<byte[]> during = h2.await(TestHost::isTest, 20, 150);
            List<byte[]> after = h2.await(TestHost::isTest, 20, 2000);
            f.stopSwitch();
            assertEquals(0, during.size(), "802.3x PAUSE stops every priority");
            assertEquals(20, after.size(), "and they flow when the pause time (335 ms) is over");
            assertEquals(1, f.sw().core().counters(1).pauseRx);
        }
    }
}
