package org.urdma.switchemu.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.urdma.switchemu.core.ClassifyMode;
import org.urdma.switchemu.core.PortConfig;
import org.urdma.switchemu.core.SwitchConfig;
import org.urdma.transport.counters.Counter;
import org.urdma.transport.driver.MemoryFabric;
import org.urdma.transport.driver.SimulatedDriver;
import org.urdma.transport.engine.CnpConfig;
import org.urdma.transport.engine.DeviceConfig;
import org.urdma.transport.engine.SoftDevice;
import org.urdma.transport.engine.SoftQp;
import org.urdma.transport.link.Ecn;
import org.urdma.transport.link.LinkFraming;
import org.urdma.transport.rate.CongestionSignal;
import org.urdma.transport.rate.RateControl;
import org.urdma.transport.wire.FramingKind;
import org.urdma.transport.wire.Ipv4Header;
import org.urdma.verbs.AccessFlags;
import org.urdma.verbs.CompletionQueue;
import org.urdma.verbs.MemoryRegion;
import org.urdma.verbs.ProtectionDomain;
import org.urdma.verbs.QpType;
import org.urdma.verbs.QueuePair;
import org.urdma.verbs.SendFlags;
import org.urdma.verbs.SendWorkRequest;
import org.urdma.verbs.WcStatus;
import org.urdma.verbs.WorkCompletion;
import org.urdma.verbs.WrOpcode;

/**
 * ECN end to end in simulation: urdma RC WRITEs from host a (25 Gbit/s) through a real {@link org.urdma.switchemu.core.SwitchCore}
 * whose 10 Gbit/s port to host b RED-marks above a few KB of queue. CE reaches b's responder, b sends one CNP per 50
 * µs while CE keeps coming, and a's rate control hears every one; the data arrives intact.
 */
class EcnThroughSwitchSimTest {
    private static final long START = 1_000_000L;
    private static final long MAC_A = 0x02_00_00_00_00_01L;
    private static final long MAC_B = 0x02_00_00_00_00_02L;
    private static final long KMIN = 4_000;
    private static final long KMAX = 16_000;

    /** Records the CNPs its QP's rate control hears; paces nothing. */
    private static final class Recording implements RateControl {
        final List<Long> cnps = new ArrayList<>();

        @Override
        public long nextSendTime(long now) {
            return Long.MIN_VALUE;
        }

        @Override
        public void onSent(int payloadBytes, long now) {
        }

        @Override
        public void onCongestion(CongestionSignal signal, long now) {
            if (signal == CongestionSignal.CNP) cnps.add(now);
        }

        @Override
        public String name() {
            return "recording";
        }
    }

    @Test
    void ceMarkedBySwitchReachesTheResponderWhoseCnpsAtTheIntervalReachTheRequestersRateControl() {
        SwitchConfig sc = new SwitchConfig().bufferBytes(8_000_000).reserveBytes(1_600).dtAlpha(8);
        sc.port(new PortConfig().rateBps(25_000_000_000L).classify(ClassifyMode.DEFAULT));
        sc.port(new PortConfig().rateBps(10_000_000_000L).classify(ClassifyMode.DEFAULT).ecn(0x01, KMIN, KMAX, 1.0));
        SwitchedHosts net = new SwitchedHosts(sc, 5);
        Recording rate = new Recording();
        RateControl.Factory recording = new RateControl.Factory() {
            @Override
            public RateControl create() {
                return rate;
            }

            @Override
            public String name() {
                return "recording";
            }
        };
        DeviceConfig ca = DeviceConfig.named("a", 1).withRateControl(recording).withWindow(64);
        DeviceConfig cb = DeviceConfig.named("b", 2).withCnp(CnpConfig.defaults());
        SwitchedHosts.Host la = net.attach(0, framing(ca), MAC_A, 25, 500, 4096);
        SwitchedHosts.Host lb = net.attach(1, framing(cb), MAC_B, 25, 500, 4096);
        List<Long> ceAt = new ArrayList<>(); // CE-marked arrivals at b
        lb.watcher = (frame, length, now) -> {
            if ((Ipv4Header.tos(frame, 14) & 3) == Ipv4Header.ECN_CE) ceAt.add(now);
        };
        SplittableRandom r = new SplittableRandom(3);
        SoftDevice a = new SoftDevice(ca, la, r.split(), START);
        SoftDevice b = new SoftDevice(cb, lb, r.split(), START);
        SimulatedDriver sim = new SimulatedDriver(START, a, b);
        try (Arena arena = Arena.ofShared()) {
            ProtectionDomain pdA = a.allocPd();
            ProtectionDomain pdB = b.allocPd();
            CompletionQueue cqA = a.createCq(1024, null);
            CompletionQueue cqB = b.createCq(1024, null);
            QueuePair qa = pdA.createQp(MemoryFabric.init(QpType.RC, cqA, 256));
            QueuePair qb = pdB.createQp(MemoryFabric.init(QpType.RC, cqB, 256));
            MemoryFabric.bringUp(qa, b, qb.qpNum(), 500, 900, MemoryFabric.Connection.defaults());
            MemoryFabric.bringUp(qb, a, qa.qpNum(), 900, 500, MemoryFabric.Connection.defaults());
            int rw = AccessFlags.LOCAL_WRITE | AccessFlags.REMOTE_WRITE;
            int size = 2 << 20; // 2 MiB at 10 Gbit/s: ~1.7 ms, ~34 CNP intervals
            MemorySegment src = arena.allocate(size, 64);
            for (int i = 0; i < size; i++) src.set(ValueLayout.JAVA_BYTE, i, (byte) (i * 31 + 7));
            MemoryRegion mrA = pdA.registerMemory(src, rw);
            MemoryRegion mrB = pdB.registerMemory(arena.allocate(size, 64), rw);
            int chunk = 64 * 1024;
            for (int off = 0; off < size; off += chunk) {
                qa.postSend(new SendWorkRequest().wrId(off).opcode(WrOpcode.RDMA_WRITE).flags(SendFlags.SIGNALED)
                        .addSge(mrA, off, chunk).remote(mrB.address() + off, mrB.rkey()));
            }
            WorkCompletion[] wc = {new WorkCompletion()};
            int[] done = {0};
            assertTrue(sim.runUntil(() -> {
                while (cqA.poll(wc) > 0) {
                    assertEquals(WcStatus.SUCCESS, wc[0].status);
                    done[0]++;
                }
                return done[0] == size / chunk;
            }, 50_000_000L), "writes completed: " + done[0]);
            sim.runFor(20_000); // the last CNP reaches a
            assertEquals(-1, src.mismatch(mrB.segment()), "remote memory holds what was written");

            SoftQp requester = (SoftQp) qa;
            SoftQp responder = (SoftQp) qb;
            long marked = net.core.counters(1).ecnMarked;
            assertTrue(marked > 100, "the switch CE-marked " + marked + " frames");
            assertEquals(marked, ceAt.size(), "every CE-marked frame reached b");
            assertEquals(marked, responder.stats().get(Counter.ECN_CE_RCVD), "CE arrives at the responder");
            assertEquals(marked, b.stats().get(Counter.ECN_CE_RCVD), "ecn_ce_rcvd");
            long cnps = responder.stats().get(Counter.CNP_SENT);
            long span = ceAt.get(ceAt.size() - 1) - ceAt.get(0);
            long intervals = span / CnpConfig.DEFAULT_INTERVAL_NANOS + 1;
            assertTrue(span > 20 * CnpConfig.DEFAULT_INTERVAL_NANOS, "CE for " + span + " ns");
            // the notification point's rule replayed over the CE arrivals: a CNP for a CE packet 50 µs or more after
            // the last CNP; the queue drains between bursts, so some intervals see no CE at all
            long expected = 0;
            long last = Long.MIN_VALUE;
            for (long t : ceAt) {
                if (expected == 0 || t - last >= CnpConfig.DEFAULT_INTERVAL_NANOS) {
                    expected++;
                    last = t;
                }
            }
            assertEquals(expected, cnps, "one CNP per interval with CE, over " + span + " ns");
            assertTrue(cnps <= intervals && cnps >= intervals * 3 / 4, cnps + " CNPs in " + intervals + " intervals");
            assertEquals(cnps, b.stats().get(Counter.CNP_SENT), "cnp_sent");
            assertEquals(cnps, rate.cnps.size(), "the requester's RateControl heard every CNP");
            assertEquals(cnps, a.stats().get(Counter.CNP_HANDLED), "cnp_handled");
            for (int i = 1; i < rate.cnps.size(); i++) {
                assertTrue(rate.cnps.get(i) - rate.cnps.get(i - 1) >= CnpConfig.DEFAULT_INTERVAL_NANOS - 1_000,
                        "CNPs heard " + (rate.cnps.get(i) - rate.cnps.get(i - 1)) + " ns apart");
            }
            assertEquals(0, net.core.counters(1).totalDrops(), "ECN instead of drops");
            System.out.printf("switch marked %d, b received CE %d over %d ns, CNPs sent %d (%d intervals), heard %d%n",
                    marked, responder.stats().get(Counter.ECN_CE_RCVD), span, cnps, intervals, rate.cnps.size());
            assertEquals(0, requester.stats().get(Counter.RETRANSMITTED_PKTS), "nothing lost");
        }
    }

    private static LinkFraming framing(DeviceConfig c) {
        return new LinkFraming(FramingKind.ROCE2, true, c.mac(), c.gid().toBytes(), -1, 0, false, Ecn.ECT0);
    }
}
