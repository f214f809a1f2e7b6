package org.urdma.transport.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.SplittableRandom;
import org.agrona.DirectBuffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.urdma.transport.counters.Counter;
import org.urdma.transport.counters.EngineCounters;
import org.urdma.transport.driver.MemoryFabric;
import org.urdma.transport.driver.SimulatedDriver;
import org.urdma.transport.journal.EventType;
import org.urdma.transport.journal.Journal;
import org.urdma.transport.journal.JournalEvent;
import org.urdma.transport.journal.JournalReader;
import org.urdma.transport.journal.RetransmitReason;
import org.urdma.transport.impair.ImpairmentConfig;
import org.urdma.transport.link.LinkFraming;
import org.urdma.transport.link.MemoryLink;
import org.urdma.transport.rate.RateControl;
import org.urdma.transport.recovery.LossRecovery;
import org.urdma.transport.wire.DecodeStatus;
import org.urdma.transport.wire.Framing;
import org.urdma.transport.wire.Framings;
import org.urdma.transport.wire.FramingKind;
import org.urdma.transport.wire.Opcode;
import org.urdma.transport.wire.OpcodeTable;
import org.urdma.transport.wire.Packet;
import org.urdma.verbs.AccessFlags;
import org.urdma.verbs.CompletionQueue;
import org.urdma.verbs.MemoryRegion;
import org.urdma.verbs.PathMtu;
import org.urdma.verbs.ProtectionDomain;
import org.urdma.verbs.QpType;
import org.urdma.verbs.QueuePair;
import org.urdma.verbs.SendFlags;
import org.urdma.verbs.SendWorkRequest;
import org.urdma.verbs.WcStatus;
import org.urdma.verbs.WorkCompletion;
import org.urdma.verbs.WrOpcode;

/**
 * TC-SACK as the paper's figure draws it: seven packets, PSNs 2, 4 and 5 lost on the way; the receiver's ACK lists
 * exactly those as missing and the sender resends exactly those (the capture and the journal say so). And the
 * timestamps: every ACK's AETH-EXT gives the sender an RTT and one-way delays.
 */
class WanSackTest {
    static final long MS = 1_000_000L;
    static final long START = 1_000_000_000L;
    static final long LATENCY = 50_000;
    static final int WAN = OpcodeTable.UETH_TS | OpcodeTable.UETH_PER_PACKET_RETH | OpcodeTable.UETH_SACK;

    @TempDir
    Path dir;

    /** B's link end, dropping the first arrival of chosen request PSNs (a loss decided in advance). */
    static final class DropFirst extends FilteredLink {
        final Set<Integer> drop;
        final Set<Integer> dropped = new HashSet<>();
        /** Which packets it drops (requests, or READ responses) and how many times each listed PSN. */
        private final int kind;
        private final int times;
        private final java.util.Map<Integer, Integer> drops = new java.util.HashMap<>();

        DropFirst(MemoryLink inner, Set<Integer> drop) {
            this(inner, drop, OpcodeTable.REQ, 1);
        }

        DropFirst(MemoryLink inner, Set<Integer> drop, int kind, int times) {
            super(inner);
            this.drop = drop;
            this.kind = kind;
            this.times = times;
        }

        @Override
        boolean accept(org.urdma.transport.packet.RxPacket p, long now) {
            int psn = p.psn();
            if ((OpcodeTable.flags(p.opcode()) & kind) == kind && drop.contains(psn) && drops.merge(psn, 1, Integer::sum) <= times) {
                dropped.add(psn);
                return false;
            }
            return true;
        }
    }

    static final class Capture implements MemoryLink.FrameTap {
        final Framing framing = Framings.of(FramingKind.ROCE2);
        final List<Packet> packets = new ArrayList<>();

        @Override
        public void onFrame(DirectBuffer f, int off, int len, long now) {
            Packet p = new Packet();
            assertEquals(DecodeStatus.OK, framing.decode(f, off, len, p), "the engine sent an undecodable frame");
            packets.add(p);
        }

        List<Integer> requestPsns() {
            List<Integer> out = new ArrayList<>();
            for (Packet p : packets) if (OpcodeTable.has(p.opcode, OpcodeTable.REQ)) out.add(p.psn);
            return out;
        }
    }

    /** A rate control that only records what the completer tells it. */
    static final class Recording implements RateControl {
        final List<Long> rtts = new ArrayList<>();
        final List<long[]> delays = new ArrayList<>();
        /** Each ACK's delivered bytes and round trip (-1: none), in order. */
        final List<long[]> acks = new ArrayList<>();

        @Override
        public long nextSendTime(long now) {
            return now;
        }

        @Override
        public void onSent(int payloadBytes, long now) {
        }

        @Override
        public void onAck(long rttNanos, long now) {
            if (rttNanos >= 0) rtts.add(rttNanos);
        }

        @Override
        public void onAck(long ackedBytes, long rttNanos, long now) {
            acks.add(new long[] {ackedBytes, rttNanos});
            onAck(rttNanos, now);
        }

        @Override
        public void onOneWayDelay(long forwardNanos, long reverseNanos, long now) {
            delays.add(new long[] {forwardNanos, reverseNanos});
        }

        @Override
        public String name() {
            return "recording";
        }
    }

    private static final class World implements AutoCloseable {
        final SoftDevice a, b;
        final MemoryLink linkA;
        final DropFirst linkB;
        final DropFirst responsesA;
        final SimulatedDriver sim;
        final Capture capA = new Capture(), capB = new Capture();
        final QueuePair qa, qb;
        final CompletionQueue cqA;
        final ProtectionDomain pdA, pdB;

        World(Set<Integer> drop, Journal journal, RateControl.Factory rate) {
            this(drop, journal, rate, Set.of(), 0);
        }

        /** As above; A also loses READ responses with the PSNs {@code responsesLost}, each {@code times} times. */
        World(Set<Integer> drop, Journal journal, RateControl.Factory rate, Set<Integer> responsesLost, int times) {
            DeviceConfig ca = DeviceConfig.named("a", 1).withLossRecovery(LossRecovery.sack());
            DeviceConfig cb = DeviceConfig.named("b", 2).withLossRecovery(LossRecovery.sack());
            MemoryLink[] ends = MemoryLink.pair(MemoryLink.Config.defaults().withLatency(LATENCY),
                    new LinkFraming(FramingKind.ROCE2, ca.mac(), ca.gid().toBytes()),
                    new LinkFraming(FramingKind.ROCE2, cb.mac(), cb.gid().toBytes()), ImpairmentConfig.none(), ImpairmentConfig.none());
            linkA = ends[0];
            linkB = new DropFirst(ends[1], drop);
            responsesA = new DropFirst(ends[0], responsesLost, OpcodeTable.READ_RESPONSE, times);
            linkA.tap(capA);
            ends[1].tap(capB);
            EngineCounters counters = EngineCounters.inMemory("a");
            a = new SoftDevice(ca, responsesA, new SplittableRandom(1), START, counters,
                    journal == null ? org.urdma.transport.journal.EventJournal.NONE : journal.device("a", counters));
            b = new SoftDevice(cb, linkB, new SplittableRandom(2), START, EngineCounters.inMemory("b"),
                    org.urdma.transport.journal.EventJournal.NONE);
            sim = new SimulatedDriver(START, a, b);
            pdA = a.allocPd();
            pdB = b.allocPd();
            cqA = a.createCq(64, null);
            CompletionQueue cqB = b.createCq(64, null);
            qa = pdA.createQp(MemoryFabric.init(QpType.RC, cqA, 64));
            qb = pdB.createQp(MemoryFabric.init(QpType.RC, cqB, 64));
            if (rate != null) ((SoftQp) qa).policies(LossRecovery.sack(), rate);
            ((SoftQp) qa).wan(WAN, 0, 0);
            ((SoftQp) qb).wan(WAN, 0, 0);
            MemoryFabric.Connection c = MemoryFabric.Connection.defaults().withMtu(PathMtu.MTU_1024);
            // A's first PSN is 1, so its seven packets are PSNs 1..7 as in the paper's figure
            MemoryFabric.bringUp(qa, b, qb.qpNum(), 100, 1, c);
            MemoryFabric.bringUp(qb, a, qa.qpNum(), 1, 100, c);
        }

        WorkCompletion write(int length) {
            MemoryRegion src = pdA.registerMemory(java.lang.foreign.Arena.ofAuto().allocate(length), AccessFlags.LOCAL_WRITE);
            MemoryRegion dst = pdB.registerMemory(java.lang.foreign.Arena.ofAuto().allocate(length), AccessFlags.ALL);
            for (int i = 0; i < length; i++) src.segment().set(java.lang.foreign.ValueLayout.JAVA_BYTE, i, (byte) (i * 7));
            qa.postSend(new SendWorkRequest().wrId(1).opcode(WrOpcode.RDMA_WRITE).flags(SendFlags.SIGNALED)
                    .addSge(src, 0, length).remote(dst.address(), dst.rkey()));
            WorkCompletion[] wc = {new WorkCompletion()};
            assertTrue(sim.runUntil(() -> cqA.poll(wc) > 0, 1_000 * MS), "the WRITE completed");
            assertEquals(-1, src.segment().mismatch(dst.segment()), "every byte arrived");
            return wc[0];
        }

        @Override
        public void close() {
            // devices are garbage once the test ends; nothing to stop under the simulated driver
        }
    }

    @Test
    void psns2And4And5OfSevenLostAreResentExactlyFromTheSack() {
        Path q = dir.resolve("sack" + Journal.SUFFIX);
        List<Integer> resentInJournal = new ArrayList<>();
        World w;
        try (Journal journal = Journal.open(q).start()) {
            w = new World(Set.of(2, 4, 5), journal, null);
            assertEquals(WcStatus.SUCCESS, w.write(7 * 1024).status);
            journal.close();
            try (JournalReader r = JournalReader.open(q)) {
                List<JournalEvent> ev = new ArrayList<>();
                while (r.poll(JournalReader.Filter.ALL, ev::add) > 0) {
                    // read all
                }
                for (JournalEvent e : ev) {
                    if (e.type() != EventType.RETRANSMIT) continue;
                    assertEquals(RetransmitReason.SACK, RetransmitReason.values()[e.c()], e.toString());
                    for (int i = 0; i < e.b(); i++) resentInJournal.add(e.a() + i);
                }
            }
        }
        assertEquals(Set.of(2, 4, 5), w.linkB.dropped, "the link lost exactly those");
        // the wire: seven first transmissions, then exactly the three lost ones, in PSN order
        assertEquals(List.of(1, 2, 3, 4, 5, 6, 7, 2, 4, 5), w.capA.requestPsns());
        for (Packet p : w.capA.packets) {
            assertEquals(OpcodeTable.RESV7_URDMA, p.resv7 & OpcodeTable.RESV7_URDMA, "WAN packets announce the UETH");
            assertEquals(WAN, p.uethFlags);
            assertTrue((p.headerMask & OpcodeTable.HDR_RETH) != 0 && (p.headerMask & OpcodeTable.HDR_TS) != 0, "per-packet RETH and TS");
        }
        // the receiver's SACK: cumulative PSN 2, missing [2] and [4, 5]
        Packet sack = null;
        for (Packet p : w.capB.packets) if (p.opcode == Opcode.RC_ACKNOWLEDGE && p.sackCount > 0 && sack == null) sack = p;
        assertTrue(sack != null, "B sent a SACK");
        assertEquals(2, sack.sackCumulativePsn);
        assertEquals(2, sack.sackCount);
        assertEquals(List.of(2, 1, 4, 2), List.of(sack.sackRangeStart[0], sack.sackRangeLength[0], sack.sackRangeStart[1],
                sack.sackRangeLength[1]));
        assertEquals(List.of(2, 4, 5), resentInJournal, "the journal names the resent PSNs, reason SACK");
        SoftQp qa = (SoftQp) w.qa;
        assertEquals(3, qa.stats().get(Counter.RETRANSMITTED_PKTS));
        assertEquals(3, qa.counters().get(Counter.SACK_RESENT_PKTS));
        // the SACK timer repeats the report every T while the gap stays open (the resends are a round trip away): the
        // sender's holdoff keeps those repeats from resending anything twice
        assertTrue(qa.counters().get(Counter.SACK_RANGES_RCVD) >= 2);
        assertEquals(0, qa.stats().get(Counter.ACK_TIMEOUTS), "no timeout needed");
        assertEquals(7 * 1024, ((SoftQp) w.qb).counters().get(Counter.PLACED_BYTES), "each byte placed once");
    }

    @Test
    void readResponsesLostAgainAfterTheirReRequestAreAllAskedForAtTheFirstTimeout() {
        // a 200-packet READ (response PSNs 1..200); 150 and 151 are lost, then lost again after the READ's last response
        // showed them missing: no later response can reveal them, only the ACK timeout, which must ask for both
        World w = new World(Set.of(), null, null, Set.of(150, 151), 2);
        int length = 200 * 1024;
        MemoryRegion dst = w.pdA.registerMemory(java.lang.foreign.Arena.ofAuto().allocate(length), AccessFlags.ALL);
        MemoryRegion src = w.pdB.registerMemory(java.lang.foreign.Arena.ofAuto().allocate(length), AccessFlags.ALL);
        for (int i = 0; i < length; i++) src.segment().set(java.lang.foreign.ValueLayout.JAVA_BYTE, i, (byte) (i * 13));
        w.qa.postSend(new SendWorkRequest().wrId(1).opcode(WrOpcode.RDMA_READ).flags(SendFlags.SIGNALED)
                .addSge(dst, 0, length).remote(src.address(), src.rkey()));
        WorkCompletion[] wc = {new WorkCompletion()};
        assertTrue(w.sim.runUntil(() -> w.cqA.poll(wc) > 0, 2_000 * MS), "the READ completed");
        assertEquals(WcStatus.SUCCESS, wc[0].status);
        assertEquals(-1, src.segment().mismatch(dst.segment()), "every byte arrived");
        assertEquals(Set.of(150, 151), w.responsesA.dropped);
        assertEquals(1, ((SoftQp) w.qa).stats().get(Counter.ACK_TIMEOUTS), "one timeout asked for both missing responses");
        assertEquals(length, ((SoftQp) w.qa).counters().get(Counter.PLACED_BYTES), "each response placed once");
    }

    @Test
    void moreGapsThanOneSackHoldsAreAllReportedBeforeTheFirstResendArrives() {
        // 40 single-PSN gaps (PSNs 2, 4, ..., 80 of 90), more than a SACK-ETH's 32 ranges
        Set<Integer> lost = new HashSet<>();
        for (int psn = 2; psn <= 80; psn += 2) lost.add(psn);
        World w = new World(lost, null, null);
        List<long[]> sentA = new ArrayList<>(); // (time, PSN) of A's requests
        List<Object[]> sacksB = new ArrayList<>(); // (time, packet) of B's SACKs
        w.linkA.tap((f, off, len, now) -> {
            Packet p = new Packet();
            w.capA.framing.decode(f, off, len, p);
            if (OpcodeTable.has(p.opcode, OpcodeTable.REQ)) sentA.add(new long[] {now, p.psn});
        });
        w.linkB.inner.tap((f, off, len, now) -> {
            Packet p = new Packet();
            w.capB.framing.decode(f, off, len, p);
            if (p.sackCount > 0) sacksB.add(new Object[] {now, p});
        });
        assertEquals(WcStatus.SUCCESS, w.write(90 * 1024).status);
        long firstResent = Long.MAX_VALUE;
        Set<Integer> seen = new HashSet<>();
        for (long[] s : sentA) {
            if (!seen.add((int) s[1])) {
                firstResent = s[0];
                break;
            }
        }
        Set<Integer> reported = new HashSet<>();
        for (Object[] s : sacksB) {
            if ((long) s[0] >= firstResent + LATENCY) break; // B has the first resend: reports after it do not count
            Packet p = (Packet) s[1];
            for (int i = 0; i < p.sackCount; i++) {
                for (int k = 0; k < p.sackRangeLength[i]; k++) reported.add(p.sackRangeStart[i] + k);
            }
        }
        assertEquals(lost, reported, "every gap was listed in the SACKs before the resends came back");
        assertEquals(40, ((SoftQp) w.qa).stats().get(Counter.RETRANSMITTED_PKTS), "each lost PSN resent once");
    }

    @Test
    void everyAckGivesTheRateControlAnRttAndOneWayDelays() {
        Recording rec = new Recording();
        World w = new World(Set.of(), null, RateControl.Factory.of("recording", () -> rec));
        assertEquals(WcStatus.SUCCESS, w.write(64 * 1024).status);
        assertTrue(!rec.rtts.isEmpty(), "RTT samples");
        for (long rtt : rec.rtts) {
            assertTrue(rtt >= 2 * LATENCY && rtt < 2 * LATENCY + 20_000, "RTT " + rtt + " ns over a " + LATENCY + " ns link");
        }
        for (long[] d : rec.delays) {
            assertTrue(d[0] >= LATENCY && d[0] < LATENCY + 20_000, "forward one-way delay " + d[0]);
            assertTrue(d[1] >= LATENCY && d[1] < LATENCY + 20_000, "reverse one-way delay " + d[1]);
        }
        assertEquals(rec.rtts.size(), rec.delays.size());
    }

    @Test
    void dcModeStaysDcOnTheWire() {
        try (Rig r = new Rig()) {
            Capture cap = new Capture();
            r.fabric.linkA.tap(cap);
            QueuePair[] qp = r.rc();
            MemoryRegion src = r.mrA(4096, AccessFlags.LOCAL_WRITE);
            MemoryRegion dst = r.mrB(4096, AccessFlags.ALL);
            qp[0].postSend(new SendWorkRequest().wrId(1).opcode(WrOpcode.RDMA_WRITE).flags(SendFlags.SIGNALED)
                    .addSge(src, 0, 4096).remote(dst.address(), dst.rkey()));
            r.awaitA(1, 100 * MS);
            assertEquals(4, cap.packets.size());
            for (Packet p : cap.packets) {
                assertEquals(0, p.resv7, "no URDMA headers in DC mode");
                assertEquals(0, p.headerMask & (OpcodeTable.HDR_UETH | OpcodeTable.HDR_TS), "no URDMA headers in DC mode");
            }
            assertEquals(OpcodeTable.HDR_RETH, cap.packets.get(0).headerMask & OpcodeTable.HDR_RETH);
            assertEquals(0, cap.packets.get(1).headerMask & OpcodeTable.HDR_RETH, "RETH on the first packet only");
        }
    }
}
