package org.urdma.switchemu.rt;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.urdma.nativeio.netns.junit.RootAssumptions;
import org.urdma.switchemu.core.DropReason;
import org.urdma.switchemu.core.PortCounters;

import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Incast 2 -> 1 through the real-time switch: the egress to h3 runs at 20 Mbit/s (2.4k frames/s)
 * while h1 and h2 each offer up to 5k frames/s of 1000 B on priority 3, into a 2 MB buffer. The
 * headroom (400 KB per lossless ingress queue) is large because the "cable" here includes the
 * switch's RX ring: frames a busy or descheduled switch thread has not read yet are still in flight
 * when it sends XOFF (80 ms of sending at 5k frames/s; this machine's load starves threads for tens of ms). The senders' links run at 1 Gbit/s so that an
 * XOFF (65535 quanta) lasts 33 ms and its refresh (every half of that) survives a switch thread the
 * machine's load keeps off the CPU for a while.
 */
@Tag("root")
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class IncastPfcRtTest {
    static final long H1 = 0x02_00_00_00_00_01L;
    static final long H2 = 0x02_00_00_00_00_02L;
    static final long H3 = 0x02_00_00_00_00_03L;
    static final int FRAMES = 2000;

    static String incast(String pfc) {
        return """
            hosts:
              - {name: h1, mac: "02:00:00:00:00:01", ip: 10.9.0.1/24}
              - {name: h2, mac: "02:00:00:00:00:02", ip: 10.9.0.2/24}
              - {name: h3, mac: "02:00:00:00:00:03", ip: 10.9.0.3/24}
            switches:
              - name: s1
                buffer: 2MB
                reserve: 1500
                alpha: 1
                headroom: 400KB
                classify: pcp
                pfc: %s
            links:
              - {endpoints: [h1, s1], rate: 1G}
              - {endpoints: [h2, s1], rate: 1G}
              - {endpoints: [s1, h3], rate: 20M}
            """.formatted(pfc);
    }

    @BeforeAll
    static void root() {
        RootAssumptions.assumeRoot();
    }

    /** h3 announces itself so that the incast is unicast, not flooded back to the senders. */
    private static void learnH3(RtFabric f) {
        f.host("h3").send(TestHost.frame(0xFFFF_FFFF_FFFFL, H3, -1, 60, -1));
        f.host("h1").await(TestHost::isTest, 1, 2000);
        f.host("h2").await(TestHost::isTest, 1, 2000);
    }

    private static int receiveAll(TestHost h3, int expected, long quietMs) {
        Set<Long> seen = new HashSet<>();
        int[] count = {0};
        long last = System.nanoTime();
        while (count[0] < expected && System.nanoTime() - last < quietMs * 1_000_000L) {
            int n = h3.receive(f -> {
                if (TestHost.isTest(f)) {
                    count[0]++;
                    seen.add(TestHost.mac(f, 6) << 32 | TestHost.seq(f));
                }
            });
            if (n > 0) {
                last = System.nanoTime();
            } else {
                h3.socket.pollIn(1);
            }
        }
        return seen.size();
    }

    @Test
    void withPfcTheIncastLosesNothingAndTheSendersSeePfcForPriority3() throws Exception {
        try (RtFabric f = new RtFabric(incast("[3]"), "s1", RtOptions.defaults())) {
            learnH3(f);
            PfcSender.Stream s1 = new PfcSender.Stream(f.host("h1"), H3, 3, 1000, FRAMES, 5_000);
            PfcSender.Stream s2 = new PfcSender.Stream(f.host("h2"), H3, 3, 1000, FRAMES, 5_000);
            Thread rx = Thread.ofPlatform().start(() -> { });
            int[] got = new int[1];
            rx = Thread.ofPlatform().start(() -> got[0] = receiveAll(f.host("h3"), 2 * FRAMES, 1500));
            PfcSender.run(List.of(s1, s2), true, 1_000_000_000L, 20_000);
            rx.join();
            f.stopSwitch();
            PortCounters in1 = f.sw().core().counters(0);
            PortCounters in2 = f.sw().core().counters(1);
            PortCounters out = f.sw().core().counters(2);
            String report = CounterReport.format(f.sw(), "test") + "\nseen by h1: " + s1.pfcSeen + "\nseen by h2: " + s2.pfcSeen;
            assertEquals(FRAMES, s1.sent);
            assertEquals(FRAMES, s2.sent);
            assertEquals(0, in1.totalDrops() + in2.totalDrops(), report);
            assertEquals(0, ((AfPacketPort) f.sw().port(0).io()).kernelStatistics().drops()
                + ((AfPacketPort) f.sw().port(1).io()).kernelStatistics().drops(), report);
            assertEquals(2 * FRAMES, got[0], "every frame delivered once\n" + report);
            assertTrue(in1.pfcTx[3] > 0 && in2.pfcTx[3] > 0, "XOFF sent to both senders\n" + report);
            for (PfcSender.Stream s : List.of(s1, s2)) {
                assertTrue(s.pfcSeen.stream().anyMatch(p -> p.quanta() > 0), "sender saw an XOFF");
                assertTrue(s.pfcSeen.stream().allMatch(p -> p.classEnable() == 0x08),
                    "class-enable vector is priority 3 only: " + s.pfcSeen);
            }
            assertTrue(out.queueHighWater[3] > 100_000, "the egress queue built up\n" + report);
        }
    }

    @Test
    void withoutPfcTheSameIncastDropsAndCountsIt() throws Exception {
        try (RtFabric f = new RtFabric(incast("[]"), "s1", RtOptions.defaults())) {
            learnH3(f);
            PfcSender.Stream s1 = new PfcSender.Stream(f.host("h1"), H3, 3, 1000, FRAMES, 5_000);
            PfcSender.Stream s2 = new PfcSender.Stream(f.host("h2"), H3, 3, 1000, FRAMES, 5_000);
            int[] got = new int[1];
            Thread rx = Thread.ofPlatform().start(() -> got[0] = receiveAll(f.host("h3"), 2 * FRAMES, 1500));
            PfcSender.run(List.of(s1, s2), true, 1_000_000_000L, 20_000);
            rx.join();
            f.stopSwitch();
            PortCounters in1 = f.sw().core().counters(0);
            PortCounters in2 = f.sw().core().counters(1);
            String report = CounterReport.format(f.sw(), "test");
            long drops = in1.totalDrops() + in2.totalDrops();
            assertTrue(drops > 0, "lossy incast overflows the buffer\n" + report);
            assertEquals(drops, in1.drops(DropReason.SHARED_THRESHOLD) + in2.drops(DropReason.SHARED_THRESHOLD)
                + in1.drops(DropReason.BUFFER_FULL) + in2.drops(DropReason.BUFFER_FULL), report);
            assertEquals(2 * FRAMES - drops, got[0], "delivered = sent - counted drops\n" + report);
            assertEquals(0, in1.pfcTx[3] + in2.pfcTx[3], "no PFC without a lossless priority");
            assertTrue(s1.pfcSeen.isEmpty() && s2.pfcSeen.isEmpty());
        }
    }
}
