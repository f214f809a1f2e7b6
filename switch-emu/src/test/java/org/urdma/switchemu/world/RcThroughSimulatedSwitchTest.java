package org.urdma.switchemu.world;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.urdma.switchemu.core.PortConfig;
import org.urdma.switchemu.core.SwitchConfig;
import org.urdma.transport.impair.ImpairmentConfig;
import org.urdma.transport.driver.MemoryFabric;
import org.urdma.transport.engine.DeviceConfig;
import org.urdma.transport.rate.RateControl;
import org.urdma.transport.recovery.LossRecovery;
import org.urdma.verbs.QpType;

/**
 * Real RC queue pairs of two urdma engines across a real switch core under the world's one clock: WRITE, READ and
 * SEND streams at once complete with the destination memory equal to the source, through loss too, and a world
 * built twice from one seed runs to the same results and the same pcap bytes.
 */
class RcThroughSimulatedSwitchTest {
    private static final long RATE = 25_000_000_000L;
    private static final long START = 1_000_000;

    private record Run(List<FlowResult> results, byte[] sentByA, byte[] receivedByA, long switchDrops, long events) {
    }

    private static Run run(long seed, double lossToB) {
        SwitchConfig sc = new SwitchConfig().bufferBytes(4_000_000);
        sc.port(new PortConfig().rateBps(RATE));
        sc.port(new PortConfig().rateBps(RATE));
        ByteArrayOutputStream sent = new ByteArrayOutputStream();
        ByteArrayOutputStream received = new ByteArrayOutputStream();
        try (World w = new World(seed, START)) {
            SwitchNode s = w.addSwitch("s1", sc);
            DeviceHost a = w.addDevice(DeviceConfig.named("a", 1), 4096, 0);
            DeviceHost b = w.addDevice(DeviceConfig.named("b", 2), 4096, 0);
            ImpairmentConfig loss = lossToB > 0 ? ImpairmentConfig.none().lossRandom(lossToB, 0) : null;
            w.connect(a, s, 0, RATE, 1_000, null, null);
            w.connect(b, s, 1, RATE, 1_000, null, loss);
            w.capture(a, sent, received);
            MemoryFabric.Connection c = MemoryFabric.Connection.defaults().withTimeout(10);
            List<MessageWorkload> ws = new ArrayList<>();
            for (MessageWorkload.Op op : MessageWorkload.Op.values()) {
                MessageWorkload m = new MessageWorkload(w, op.name().toLowerCase(), a, b, op, QpType.RC, 64 * 1024, 4,
                        32, Long.MAX_VALUE, LossRecovery.goBackN(), RateControl.none(), c, seed + op.ordinal());
                w.add(a, m, START + 10_000 * op.ordinal());
                ws.add(m);
            }
            assertTrue(w.runUntilFinished(START + 2_000_000_000L), "every workload finished by 2 s");
            List<FlowResult> results = new ArrayList<>();
            for (MessageWorkload m : ws) results.add(m.result());
            long drops = s.core().counters(0).totalDrops() + s.core().counters(1).totalDrops();
            Run r = new Run(results, null, null, drops, w.events());
            w.close();
            return new Run(r.results, sent.toByteArray(), received.toByteArray(), drops, r.events);
        }
    }

    @Test
    void writeReadAndSendCrossTheSwitchAndTheMemoryHoldsWhatWasSent() {
        Run r = run(11, 0);
        for (FlowResult f : r.results) {
            assertEquals(32, f.messages(), f.name() + " messages");
            assertEquals(0, f.errors(), f.name() + " errors");
            assertEquals(Boolean.TRUE, f.memoryVerified(), f.name() + " memory");
            assertEquals(0, f.retransmitted(), f.name() + " resent nothing without loss");
            assertTrue(f.goodputGbps() > 1, f.name() + " goodput " + f.goodputGbps());
        }
        assertEquals(0, r.switchDrops);
        assertTrue(r.sentByA.length > 3 * 32 * 64 * 1024 / 3, "a's pcap holds its frames: " + r.sentByA.length);
    }

    @Test
    void goBackNRecoversLossOnTheSwitchsPortAndTheMemoryStillMatches() {
        Run r = run(12, 0.01);
        long resent = 0;
        for (FlowResult f : r.results) {
            assertEquals(32, f.messages(), f.name());
            assertEquals(Boolean.TRUE, f.memoryVerified(), f.name() + " memory");
            resent += f.retransmitted();
        }
        assertTrue(resent > 0, "1 % loss towards b made someone resend");
    }

    @Test
    void oneSeedGivesTheSameResultsAndTheSamePcapBytes() {
        Run first = run(13, 0.01);
        Run second = run(13, 0.01);
        assertEquals(first.results, second.results);
        assertEquals(first.events, second.events);
        assertArrayEquals(first.sentByA, second.sentByA, "pcap of what a sent");
        assertArrayEquals(first.receivedByA, second.receivedByA, "pcap of what a received");
        Run other = run(14, 0.01);
        assertTrue(!java.util.Arrays.equals(first.receivedByA, other.receivedByA), "another seed, other frames");
    }
}
