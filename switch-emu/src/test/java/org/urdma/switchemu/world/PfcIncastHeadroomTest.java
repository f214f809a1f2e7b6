package org.urdma.switchemu.world;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;
import org.urdma.switchemu.core.ClassifyMode;
import org.urdma.switchemu.core.PortConfig;
import org.urdma.switchemu.core.PortCounters;
import org.urdma.switchemu.core.SwitchConfig;
import org.urdma.transport.driver.MemoryFabric;
import org.urdma.transport.engine.DeviceConfig;
import org.urdma.transport.rate.RateControl;
import org.urdma.transport.recovery.LossRecovery;
import org.urdma.verbs.PathMtu;
import org.urdma.verbs.QpType;

/**
 * A 15 to 1 incast of 2 MB per sender at 100 Gbit/s, PFC only (no rate control), with the headroom a real NIC needs
 * per port: what is on the wire in both directions while the XOFF travels (2 x link delay x rate) plus the frame the
 * switch is sending when it decides and the frame the host is sending when the XOFF lands. A host that starts nothing
 * after XOFF fits in it: nothing is dropped and the bottleneck stays busy, so the incast takes the wire time of what
 * crossed it.
 */
class PfcIncastHeadroomTest {
    private static final long RATE = 100_000_000_000L;
    private static final long DELAY_NS = 1_000;
    private static final int SENDERS = 15;
    private static final int PRIO = 3;
    private static final long START = 1_000_000;
    /** A full-size frame on the wire: 1518 B with preamble and IFG. */
    private static final long FRAME_WIRE = 1518 + 20;
    private static final long HEADROOM = 2 * DELAY_NS * RATE / 8 / 1_000_000_000L + 2 * FRAME_WIRE;

    @Test
    void fifteenToOneAtOneHundredGigabitIsLosslessWithNicSizedHeadroomAndKeepsTheBottleneckBusy() {
        int bottleneck = SENDERS;
        try (World w = new World(7, START)) {
            SwitchConfig sc = new SwitchConfig().bufferBytes(4_000_000).reserveBytes(1_500);
            for (int i = 0; i <= SENDERS; i++) {
                sc.port(new PortConfig().mac(0x02_00_00_00_C0_00L + i).rateBps(RATE).classify(ClassifyMode.DEFAULT)
                        .defaultPriority(PRIO).headroomBytes(HEADROOM).pfcMask(1 << PRIO));
            }
            SwitchNode s = w.addSwitch("s1", sc);
            DeviceHost sink = w.addDevice(DeviceConfig.named("sink", 1), 1024, PRIO);
            w.connect(sink, s, bottleneck, RATE, DELAY_NS, null, null);
            MessageWorkload[] m = new MessageWorkload[SENDERS];
            for (int i = 0; i < SENDERS; i++) {
                DeviceHost h = w.addDevice(DeviceConfig.named("h" + i, 0x10 + i), 1024, PRIO);
                w.connect(h, s, i, RATE, DELAY_NS, null, null);
                m[i] = new MessageWorkload(w, "h" + i, h, sink, MessageWorkload.Op.WRITE, QpType.RC, 64 * 1024, 4, 32,
                        Long.MAX_VALUE, LossRecovery.goBackN(), RateControl.none(),
                        MemoryFabric.Connection.defaults().withMtu(PathMtu.MTU_1024).withTimeout(10).withRetryCnt(7), 100 + i);
                w.add(h, m[i], START);
            }
            assertTrue(w.runUntilFinished(START + 1_000_000_000L), "every sender finished within 1 s");
            long drops = 0;
            long pfc = 0;
            for (int p = 0; p <= SENDERS; p++) {
                drops += s.core().counters(p).totalDrops();
                pfc += s.core().counters(p).pfcFramesTx;
            }
            long last = 0;
            long retransmitted = 0;
            for (MessageWorkload x : m) {
                assertEquals(2L << 20, x.result().bytes(), x.result().name());
                assertTrue(x.verify(), x.result().name() + ": the sink holds what was sent");
                last = Math.max(last, x.result().lastCompletionNs());
                retransmitted += x.result().retransmitted();
            }
            PortCounters out = s.core().counters(bottleneck);
            // the bottleneck's wire time: every frame it sent with preamble, FCS and IFG
            double wireNs = (out.txBytes + 24.0 * out.txFrames) * 8 * 1e9 / RATE;
            double took = last - START;
            String what = String.format("headroom %d B: %d drops, %d PFC frames, %d retransmitted; %.1f us for %.1f us of "
                    + "bottleneck wire time", HEADROOM, drops, pfc, retransmitted, took / 1e3, wireNs / 1e3);
            System.out.println("15:1 incast, 2 MB each at 100 Gbit/s: " + what);
            assertTrue(pfc > 0, "the incast needed PFC: " + what);
            assertEquals(0, drops, what);
            assertEquals(0, retransmitted, what);
            // the first frames reach the sink after a link delay each way and the last ACK comes back: a few us more
            assertTrue(took <= wireNs * 1.01 + 10 * DELAY_NS, "the bottleneck stayed busy: " + what);
        }
    }
}
