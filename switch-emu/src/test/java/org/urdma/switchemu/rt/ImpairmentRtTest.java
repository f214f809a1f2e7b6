package org.urdma.switchemu.rt;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.urdma.nativeio.netns.junit.RootAssumptions;
import org.urdma.transport.impair.Impairment;

import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Impairment in real time: frames s1 -> h2 get 5 ms ± 1 ms delay, 10 % loss and 5 % duplication.
 * What the hosts see must match the impairment's own decisions exactly (copies), the rates within
 * statistical tolerance; delays only loosely (never early, late by whatever the machine's load costs:
 * the exact delay statistics are checked in the simulator). Jitter shows as reordering.
 */
@Tag("root")
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ImpairmentRtTest {
    static final long H1 = 0x02_00_00_00_00_01L;
    static final long H2 = 0x02_00_00_00_00_02L;
    static final int FRAMES = 4000;

    @BeforeAll
    static void root() {
        RootAssumptions.assumeRoot();
    }

    @Test
    void lossDelayJitterAndDuplicationAreRoughlyAsConfigured() throws Exception {
        String yaml = """
            hosts:
              - {name: h1, mac: "02:00:00:00:00:01", ip: 10.9.0.1/24}
              - {name: h2, mac: "02:00:00:00:00:02", ip: 10.9.0.2/24}
            switches:
              - {name: s1}
            links:
              - {endpoints: [h1, s1], rate: 10G}
              - endpoints: [s1, h2]
                rate: 10G
                impairAtoB: {delay: 5ms, jitter: 1ms, loss: 10%, duplicate: 5%}
            """;
        try (RtFabric f = new RtFabric(yaml, "s1", RtOptions.defaults())) {
            TestHost h1 = f.host("h1");
            TestHost h2 = f.host("h2");
            h2.send(TestHost.frame(0xFFFF_FFFF_FFFFL, H2, -1, 60, -1));
            assertEquals(1, h1.await(TestHost::isTest, 1, 2000).size());
            Map<Long, Integer> copies = new HashMap<>();
            double[] delay = new double[3]; // n, sum, sum of squares (ms)
            double[] range = {Double.MAX_VALUE, 0};
            java.util.List<Double> delays = new java.util.ArrayList<>();
            long[] order = {-1, 0}; // highest seq so far, arrivals behind it
            boolean[] stop = {false};
            StringBuilder early = new StringBuilder();
            Thread rx = Thread.ofPlatform().start(() -> {
                long quietSince = System.nanoTime();
                while (!stop[0] || System.nanoTime() - quietSince < 300_000_000L) {
                    int n = h2.receive(b -> {
                        if (!TestHost.isTest(b)) {
                            return;
                        }
                        double ms = (System.nanoTime() - TestHost.sentAt(b)) / 1e6;
                        long seq = TestHost.seq(b);
                        if (copies.merge(seq, 1, Integer::sum) == 1) {
                            if (seq < order[0]) {
                                order[1]++;
                            }
                            order[0] = Math.max(order[0], seq);
                        }
                        delays.add(ms);
                        delay[0]++;
                        delay[1] += ms;
                        delay[2] += ms * ms;
                        range[0] = Math.min(range[0], ms);
                        if (ms < 3.9) {
                            early.append(TestHost.seq(b)).append('@').append(ms).append(' ');
                        }
                        range[1] = Math.max(range[1], ms);
                    });
                    if (n > 0) {
                        quietSince = System.nanoTime();
                    } else {
                        h2.socket.pollIn(1);
                    }
                }
            });
            for (int i = 0; i < FRAMES; i++) {
                h1.send(TestHost.frame(H2, H1, -1, 200, i));
                if (i % 16 == 15) {
                    Thread.sleep(1); // about 10k frames/s
                }
            }
            stop[0] = true;
            rx.join();
            f.stopSwitch();
            Impairment imp = f.sw().port(1).egressImpairment();
            int unique = copies.size();
            long dups = copies.values().stream().mapToLong(c -> c - 1).sum();
            double mean = delay[1] / delay[0];
            double sd = Math.sqrt(delay[2] / delay[0] - mean * mean);
            java.util.Collections.sort(delays);
            double median = delays.get(delays.size() / 2);
            double behind = order[1] / (double) unique;
            String detail = "unique " + unique + " dups " + dups + " delay mean " + mean + " median " + median + " sd " + sd
                + " range " + range[0] + ".." + range[1] + ", arrived behind a later frame " + behind + "\n"
                + CounterReport.format(f.sw(), "switch stage");
            assertEquals(FRAMES, imp.offered(), detail);
            assertEquals(FRAMES - imp.lost() + imp.duplicated(), unique + dups,
                "every copy the impairment let through arrived\n" + detail);
            // netem: a frame is lost unless duplicated (5 %) with a surviving copy: 0.95 x 10 % = 9.5 %
            double lossRate = 1.0 - unique / (double) FRAMES;
            assertTrue(Math.abs(lossRate - 0.095) < 0.03, "loss rate " + lossRate + "\n" + detail);
            double dupRate = dups / (double) FRAMES;
            assertTrue(Math.abs(dupRate - 0.045) < 0.02, "duplicate rate " + dupRate + "\n" + detail);
            // the switch never releases early; late by what the machine's load costs (loose upper bound)
            assertTrue(range[0] >= 3.95, "no frame earlier than delay - jitter\n" + detail);
            // upper bound: what the driver itself reports as lateness (a loaded machine starves its thread), plus
            // the receiving thread's own scheduling slack
            double lateMs = f.sw().port(1).meanReleaseLatenessNs() / 1e6;
            assertTrue(median >= 4.5 && median < 6 + 2 * lateMs + 15, "median delay " + median + " ms, driver late by "
                + lateMs + " ms on average\n" + detail);
            // jitter of ±1 ms on frames ~0.1 ms apart reorders them (netem's tfifo); scheduling noise does not
            assertTrue(behind > 0.1, "jitter reorders frames\n" + detail);
        }
    }
}
