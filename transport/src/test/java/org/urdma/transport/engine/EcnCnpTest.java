package org.urdma.transport.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.Arena;
import java.util.List;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;
import org.urdma.transport.counters.Counter;
import org.urdma.transport.driver.MemoryFabric;
import org.urdma.transport.driver.SimulatedDriver;
import org.urdma.transport.link.Ecn;
import org.urdma.transport.impair.ImpairmentConfig;
import org.urdma.transport.link.MemoryLink;
import org.urdma.transport.rate.RecordingRateControl;
import org.urdma.transport.wire.FramingKind;
import org.urdma.transport.wire.Opcode;
import org.urdma.transport.wire.Packet;
import org.urdma.verbs.AccessFlags;
import org.urdma.verbs.CompletionQueue;
import org.urdma.verbs.MemoryRegion;
import org.urdma.verbs.ProtectionDomain;
import org.urdma.verbs.QpType;
import org.urdma.verbs.QueuePair;
import org.urdma.verbs.ReceiveWorkRequest;
import org.urdma.verbs.SendFlags;
import org.urdma.verbs.SendWorkRequest;
import org.urdma.verbs.WcStatus;
import org.urdma.verbs.WorkCompletion;
import org.urdma.verbs.WrOpcode;

/**
 * ECN at the host, two devices under a virtual clock: a CE-marked request makes the responder's QP send a CNP (at most
 * one per interval) to the requester QP, whose rate control hears it; PAXI's CNP merge drops CNPs inside TIMER_THR.
 */
class EcnCnpTest {
    private static final long START = 1_000_000_000L;
    private static final long US = 1_000;
    private static final int RW = AccessFlags.LOCAL_WRITE | AccessFlags.REMOTE_WRITE | AccessFlags.REMOTE_READ;

    /** Two devices a (requester, recording rate control) and b (responder) on a 10 Gbit/s in-memory link. */
    private static final class World implements AutoCloseable {
        final MemoryFabric fabric;
        final SimulatedDriver sim;
        final RecordingRateControl rate = new RecordingRateControl();
        final CeMarker aToB;
        final CeMarker bToA;
        final ProtectionDomain pdA, pdB;
        final CompletionQueue cqA, cqB;
        final Arena arena = Arena.ofShared();
        SoftQp qa, qb;

        World(FramingKind kind, Ecn ecn, CnpConfig cnpA, CnpConfig cnpB) {
            fabric = new MemoryFabric(DeviceConfig.named("a", 1).withRateControl(rate.factory()).withCnp(cnpA),
                    DeviceConfig.named("b", 2).withCnp(cnpB), MemoryLink.Config.defaults().withGbps(10),
                    MemoryFabric.CodecFactory.wire(kind, true, ecn), ImpairmentConfig.none(), ImpairmentConfig.none(), 7, START);
            sim = new SimulatedDriver(START, fabric.a, fabric.b);
            aToB = new CeMarker(kind);
            bToA = new CeMarker(kind);
            bToA.marking = false;
            fabric.linkA.tap(aToB);
            fabric.linkB.tap(bToA);
            pdA = fabric.a.allocPd();
            pdB = fabric.b.allocPd();
            cqA = fabric.a.createCq(4096, null);
            cqB = fabric.b.createCq(4096, null);
        }

        void connect(QpType type) {
            QueuePair[] q = fabric.connect(pdA, MemoryFabric.init(type, cqA, 512), pdB, MemoryFabric.init(type, cqB, 512),
                    MemoryFabric.Connection.defaults(), 10, 20);
            qa = (SoftQp) q[0];
            qb = (SoftQp) q[1];
        }

        /** Writes {@code count} × {@code bytes} from a to b and runs until every one completed; returns the time taken. */
        long write(int count, int bytes) {
            MemoryRegion src = pdA.registerMemory(arena.allocate(bytes, 64), RW);
            MemoryRegion dst = pdB.registerMemory(arena.allocate(bytes, 64), RW);
            for (int i = 0; i < count; i++) {
                qa.postSend(new SendWorkRequest().wrId(i).opcode(WrOpcode.RDMA_WRITE).flags(SendFlags.SIGNALED)
                        .addSge(src, 0, bytes).remote(dst.address(), dst.rkey()));
            }
            long t0 = sim.now();
            int[] done = {0};
            WorkCompletion[] wc = {new WorkCompletion()};
            assertTrue(sim.runUntil(() -> {
                while (cqA.poll(wc) > 0) {
                    assertEquals(WcStatus.SUCCESS, wc[0].status);
                    done[0]++;
                }
                return done[0] == count;
            }, 100_000 * US), "writes completed: " + done[0]);
            return sim.now() - t0;
        }

        @Override
        public void close() {
            arena.close();
        }
    }

    @Test
    void ceMarkedRcWritesMakeAtMostOneCnpPerIntervalAndTheRequestersRateControlHearsEach() {
        try (World w = new World(FramingKind.ROCE2, Ecn.ECT0, CnpConfig.defaults(), CnpConfig.defaults())) {
            w.connect(QpType.RC);
            long elapsed = w.write(16, 64 * 1024); // 1 MiB at 10 Gbit/s: ~0.85 ms, ~17 intervals of 50 µs
            long requests = w.qa.stats().get(Counter.SENT_PKTS);
            assertEquals(requests, w.aToB.marked, "every request left ECT(0) and was marked");
            assertEquals(requests, w.qb.stats().get(Counter.ECN_CE_RCVD), "CE arrives at the responder");
            assertEquals(requests, w.fabric.b.stats().get(Counter.ECN_CE_RCVD), "ecn_ce_rcvd");
            long cnps = w.qb.stats().get(Counter.CNP_SENT);
            // the first CE packet answers at once, then one per 50 µs while CE keeps coming
            long maxCnps = elapsed / CnpConfig.DEFAULT_INTERVAL_NANOS + 1;
            assertTrue(cnps >= maxCnps - 2 && cnps <= maxCnps, cnps + " CNPs in " + elapsed + " ns");
            assertEquals(cnps, w.fabric.b.stats().get(Counter.CNP_SENT), "cnp_sent");
            assertEquals(cnps, w.bToA.cnps.size(), "CNP frames on the wire");
            for (int i = 1; i < w.bToA.cnpTimes.size(); i++) {
                long gap = w.bToA.cnpTimes.get(i) - w.bToA.cnpTimes.get(i - 1);
                assertTrue(gap >= CnpConfig.DEFAULT_INTERVAL_NANOS, "CNP " + i + " only " + gap + " ns after the last");
            }
            for (Packet p : w.bToA.cnps) {
                assertEquals(Opcode.CNP, p.opcode);
                assertEquals(w.qa.qpNum(), p.destQp, "DestQP = the requester's QP");
                assertEquals(0, p.psn);
                assertEquals(0, p.payloadLength);
            }
            assertEquals(cnps, w.rate.cnps.size(), "the requester's RateControl heard every CNP");
            assertEquals(cnps, w.qa.stats().get(Counter.CNP_HANDLED));
            assertEquals(cnps, w.fabric.a.stats().get(Counter.CNP_HANDLED), "cnp_handled");
            assertEquals(0, w.fabric.a.stats().get(Counter.CNP_MERGED), "no merge on RoCE by default");
            assertEquals(0, w.qa.stats().get(Counter.RETRANSMITTED_PKTS), "the CNPs did not disturb the ACK stream");
        }
    }

    @Test
    void aCnpIntervalOfZeroAnswersEveryCePacket() {
        try (World w = new World(FramingKind.ROCE2, Ecn.ECT0, CnpConfig.defaults(), new CnpConfig(0, 0))) {
            w.connect(QpType.RC);
            w.write(4, 16 * 1024);
            assertEquals(w.qa.stats().get(Counter.SENT_PKTS), w.qb.stats().get(Counter.CNP_SENT));
            assertEquals(w.qb.stats().get(Counter.CNP_SENT), w.rate.cnps.size());
        }
    }

    @Test
    void notEctFramesAreNeverMarkedSoNoCnpIsSent() {
        try (World w = new World(FramingKind.ROCE2, Ecn.NOT_ECT, CnpConfig.defaults(), CnpConfig.defaults())) {
            w.connect(QpType.RC);
            w.write(4, 16 * 1024);
            assertEquals(0, w.aToB.ectSeen, "every request left Not-ECT");
            assertEquals(0, w.aToB.marked);
            assertEquals(0, w.qb.stats().get(Counter.ECN_CE_RCVD));
            assertEquals(0, w.qb.stats().get(Counter.CNP_SENT));
            assertEquals(0, w.rate.cnps.size());
        }
    }

    @Test
    void ect1IsTheCodepointOnTheWireWhenConfigured() {
        try (World w = new World(FramingKind.ROCE2, Ecn.ECT1, CnpConfig.defaults(), CnpConfig.defaults())) {
            w.aToB.marking = false;
            w.connect(QpType.RC);
            w.write(1, 4096);
            assertEquals(Ecn.ECT1.bits(), w.aToB.lastEcn);
            assertEquals(Ecn.ECT1.bits(), w.bToA.lastEcn, "ACKs too");
        }
    }

    @Test
    void ucAnswersCeWithCnpsToItsPeer() {
        try (World w = new World(FramingKind.ROCE2, Ecn.ECT0, CnpConfig.defaults(), CnpConfig.defaults())) {
            w.connect(QpType.UC);
            w.write(8, 64 * 1024);
            w.sim.runFor(2_000 * US); // UC completes at the sender: let the link deliver the rest
            assertTrue(w.qb.stats().get(Counter.CNP_SENT) >= 5, "CNPs " + w.qb.stats().get(Counter.CNP_SENT));
            assertEquals(w.qb.stats().get(Counter.CNP_SENT), w.rate.cnps.size());
            for (Packet p : w.bToA.cnps) assertEquals(w.qa.qpNum(), p.destQp);
        }
    }

    @Test
    void udAnswersCeWithACnpToTheSourceQpAndAddressOfTheMarkedPacket() {
        try (World w = new World(FramingKind.ROCE2, Ecn.ECT0, CnpConfig.defaults(), CnpConfig.defaults())) {
            w.connect(QpType.UD);
            MemoryRegion buf = w.pdB.registerMemory(w.arena.allocate(4096, 64), RW);
            for (int i = 0; i < 4; i++) w.qb.postRecv(new ReceiveWorkRequest().wrId(i).addSge(buf, 0, 4096));
            Frames frames = new Frames(w.fabric);
            long[] at = {w.sim.now()};
            Consumer<Integer> send = srcQp -> {
                Packet p = frames.packet();
                p.tos = 0b11; // CE: a switch on the way marked it
                p.opcode = Opcode.UD_SEND_ONLY;
                p.destQp = w.qb.qpNum();
                p.psn = 1;
                p.dethQkey = 0x11111111;
                p.dethSrcQp = srcQp;
                p.srcMac = 0x02_00_00_00_00_77L; // a third host, not a's QP
                p.ipSrc = 0x0A000077;
                p.payloadBuffer = new org.agrona.concurrent.UnsafeBuffer(new byte[64]);
                p.payloadLength = 64;
                assertTrue(frames.send(p, at[0]));
            };
            send.accept(0x4242);
            w.sim.runFor(5 * US);
            at[0] += 2 * US;
            send.accept(0x4343); // inside the interval: no second CNP
            w.sim.runFor(5 * US);
            assertEquals(2, w.qb.stats().get(Counter.ECN_CE_RCVD));
            assertEquals(1, w.qb.stats().get(Counter.CNP_SENT));
            List<Packet> cnps = w.bToA.cnps;
            assertEquals(1, cnps.size());
            Packet c = cnps.get(0);
            assertEquals(0x4242, c.destQp, "to the DETH source QP");
            assertEquals(0x02_00_00_00_00_77L, c.dstMac, "to the source MAC");
            assertEquals(0x0A000077, c.ipDst, "to the source IP");
            assertEquals(0, c.psn);
            at[0] += CnpConfig.DEFAULT_INTERVAL_NANOS + 2 * US; // sent later: the virtual clock jumps to its arrival
            send.accept(0x4444);
            w.sim.runFor(CnpConfig.DEFAULT_INTERVAL_NANOS + 10 * US);
            assertEquals(3, w.qb.stats().get(Counter.ECN_CE_RCVD));
            assertEquals(2, w.qb.stats().get(Counter.CNP_SENT), "a CE packet after the interval gets its CNP");
            assertEquals(0x4444, w.bToA.cnps.get(1).destQp);
        }
    }

    @Test
    void paxiStandardCnpMergeDropsCnpsForAQpidInsideTimerThr() {
        long timerThr = 20 * US;
        // b answers every CE packet; a merges what comes within 20 µs of the last CNP it passed
        try (World w = new World(FramingKind.PAXI_STANDARD, Ecn.ECT0, new CnpConfig(CnpConfig.DEFAULT_INTERVAL_NANOS, timerThr),
                new CnpConfig(0, 0))) {
            w.connect(QpType.RC);
            long elapsed = w.write(16, 64 * 1024);
            long sent = w.qb.stats().get(Counter.CNP_SENT);
            assertEquals(w.qa.stats().get(Counter.SENT_PKTS), sent, "one CNP per CE-marked request");
            for (Packet p : w.bToA.cnps) {
                assertEquals(FramingKind.PAXI_STANDARD, p.framing);
                assertEquals(Opcode.CNP, p.opcode, "the RH form of the CNP");
                assertEquals(w.qa.qpNum(), p.destQp);
            }
            long handled = w.qa.stats().get(Counter.CNP_HANDLED);
            long merged = w.qa.stats().get(Counter.CNP_MERGED);
            assertEquals(sent, handled + merged, "every CNP either passed or was merged");
            assertTrue(merged > handled, "merged " + merged + ", passed " + handled);
            assertTrue(handled <= elapsed / timerThr + 1 && handled >= elapsed / timerThr - 2,
                    handled + " passed in " + elapsed + " ns");
            assertEquals(merged, w.fabric.a.stats().get(Counter.CNP_MERGED), "cnp_merged");
            assertEquals(handled, w.rate.cnps.size());
            for (int i = 1; i < w.rate.cnps.size(); i++) {
                assertTrue(w.rate.cnps.get(i) - w.rate.cnps.get(i - 1) >= timerThr, "passed CNPs at least TIMER_THR apart");
            }
        }
    }
}
