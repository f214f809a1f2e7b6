package org.urdma.transport.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.Arena;
import java.lang.foreign.ValueLayout;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.urdma.transport.counters.Counter;
import org.urdma.transport.counters.EngineCounters;
import org.urdma.transport.driver.MemoryFabric;
import org.urdma.transport.driver.SimulatedDriver;
import org.urdma.transport.journal.EventJournal;
import org.urdma.transport.journal.EventType;
import org.urdma.transport.journal.Journal;
import org.urdma.transport.journal.JournalEvent;
import org.urdma.transport.journal.JournalReader;
import org.urdma.transport.impair.ImpairmentConfig;
import org.urdma.transport.link.LinkFraming;
import org.urdma.transport.link.MemoryLink;
import org.urdma.transport.recovery.LossRecovery;
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
 * P-FEC in the engine with groups of 4 data packets and 2 parities (stripes {0, 2} and {1, 3} of each group): one loss
 * per stripe is rebuilt at the receiver and placed with no retransmission; two in one stripe fall back to SACK.
 */
class WanFecTest {
    static final long MS = 1_000_000L;
    static final long START = 1_000_000_000L;
    /** Path MTU 1024 less the 64 bytes P-FEC keeps for the headers a parity also carries. */
    static final int PAYLOAD = 1024 - QpControl.FEC_HEADROOM;
    static final int WAN_FEC = OpcodeTable.UETH_TS | OpcodeTable.UETH_PER_PACKET_RETH | OpcodeTable.UETH_SACK | OpcodeTable.UETH_FEC;

    @TempDir
    Path dir;

    private static final class World {
        final SoftDevice a, b;
        final WanSackTest.DropFirst linkB;
        final SimulatedDriver sim;
        final WanSackTest.Capture capA = new WanSackTest.Capture();
        final QueuePair qa, qb;
        final CompletionQueue cqA;
        final ProtectionDomain pdA, pdB;

        World(Set<Integer> drop, Journal journal) {
            DeviceConfig ca = DeviceConfig.named("a", 1).withLossRecovery(LossRecovery.sack());
            DeviceConfig cb = DeviceConfig.named("b", 2).withLossRecovery(LossRecovery.sack());
            MemoryLink[] ends = MemoryLink.pair(MemoryLink.Config.defaults().withLatency(50_000),
                    new LinkFraming(FramingKind.ROCE2, ca.mac(), ca.gid().toBytes()),
                    new LinkFraming(FramingKind.ROCE2, cb.mac(), cb.gid().toBytes()), ImpairmentConfig.none(), ImpairmentConfig.none());
            linkB = new WanSackTest.DropFirst(ends[1], drop);
            ends[0].tap(capA);
            EngineCounters cnt = EngineCounters.inMemory("b");
            a = new SoftDevice(ca, ends[0], new SplittableRandom(1), START, EngineCounters.inMemory("a"), EventJournal.NONE);
            b = new SoftDevice(cb, linkB, new SplittableRandom(2), START, cnt,
                    journal == null ? EventJournal.NONE : journal.device("b", cnt));
            sim = new SimulatedDriver(START, a, b);
            pdA = a.allocPd();
            pdB = b.allocPd();
            cqA = a.createCq(64, null);
            CompletionQueue cqB = b.createCq(64, null);
            qa = pdA.createQp(MemoryFabric.init(QpType.RC, cqA, 64));
            qb = pdB.createQp(MemoryFabric.init(QpType.RC, cqB, 64));
            ((SoftQp) qa).wan(WAN_FEC, 4, 2);
            ((SoftQp) qb).wan(WAN_FEC, 4, 2);
            MemoryFabric.Connection c = MemoryFabric.Connection.defaults().withMtu(PathMtu.MTU_1024);
            MemoryFabric.bringUp(qa, b, qb.qpNum(), 100, 1, c); // A's PSNs start at 1: groups 1..4, 5..8
            MemoryFabric.bringUp(qb, a, qa.qpNum(), 1, 100, c);
        }

        void writeVerified(int length) {
            MemoryRegion src = pdA.registerMemory(Arena.ofAuto().allocate(length), AccessFlags.LOCAL_WRITE);
            MemoryRegion dst = pdB.registerMemory(Arena.ofAuto().allocate(length), AccessFlags.ALL);
            for (int i = 0; i < length; i++) src.segment().set(ValueLayout.JAVA_BYTE, i, (byte) (i * 7 + 3));
            qa.postSend(new SendWorkRequest().wrId(1).opcode(WrOpcode.RDMA_WRITE).flags(SendFlags.SIGNALED)
                    .addSge(src, 0, length).remote(dst.address(), dst.rkey()));
            WorkCompletion[] wc = {new WorkCompletion()};
            assertTrue(sim.runUntil(() -> cqA.poll(wc) > 0, 1_000 * MS), "the WRITE completed");
            assertEquals(WcStatus.SUCCESS, wc[0].status);
            assertEquals(-1, src.segment().mismatch(dst.segment()), "every byte arrived");
        }

        long parityPackets() {
            return capA.packets.stream().filter(p -> p.opcode == Opcode.URDMA_FEC_PARITY).count();
        }
    }

    private List<JournalEvent> events(Path q) {
        List<JournalEvent> ev = new ArrayList<>();
        try (JournalReader r = JournalReader.open(q)) {
            while (r.poll(JournalReader.Filter.ALL, ev::add) > 0) {
                // read all
            }
        }
        return ev;
    }

    @Test
    void oneLossPerStripeIsRebuiltWithoutARetransmission() {
        Path q = dir.resolve("fec" + Journal.SUFFIX);
        World w;
        try (Journal journal = Journal.open(q).start()) {
            // PSN 2 is stripe 1 of group 1..4; PSN 7 is stripe 0 of group 5..8; PSN 8 stripe 1 of that group
            w = new World(Set.of(2, 7, 8), journal);
            w.writeVerified(8 * PAYLOAD);
            journal.close();
        }
        assertEquals(Set.of(2, 7, 8), w.linkB.dropped, "the link lost exactly those");
        assertEquals(List.of(1, 2, 3, 4, 5, 6, 7, 8), w.capA.requestPsns(), "each PSN on the wire once: nothing resent");
        assertEquals(4, w.parityPackets(), "two parities per group of four");
        for (Packet p : w.capA.packets) {
            if (p.opcode != Opcode.URDMA_FEC_PARITY) continue;
            assertTrue(p.fecBasePsn == 1 || p.fecBasePsn == 5, "group base " + p.fecBasePsn);
            assertEquals(4, p.fecM);
            assertEquals(2, p.fecR);
        }
        SoftQp qa = (SoftQp) w.qa;
        SoftQp qb = (SoftQp) w.qb;
        assertEquals(0, qa.stats().get(Counter.RETRANSMITTED_PKTS));
        assertEquals(0, qa.stats().get(Counter.ACK_TIMEOUTS));
        assertEquals(4, qa.counters().get(Counter.FEC_PARITY_SENT));
        assertEquals(3, qb.counters().get(Counter.FEC_REPAIRED));
        List<Integer> repaired = new ArrayList<>();
        for (JournalEvent e : events(q)) if (e.type() == EventType.FEC_REPAIRED) repaired.add(e.a());
        assertEquals(List.of(2, 7, 8), repaired, "the journal names the rebuilt PSNs");
    }

    @Test
    void twoLossesInOneStripeFallBackToSack() {
        // PSNs 1 and 3 are both stripe 0 of group 1..4: its parity cannot rebuild either
        World w = new World(Set.of(1, 3), null);
        w.writeVerified(8 * PAYLOAD);
        SoftQp qa = (SoftQp) w.qa;
        SoftQp qb = (SoftQp) w.qb;
        assertEquals(2, qa.stats().get(Counter.RETRANSMITTED_PKTS));
        assertEquals(2, qa.counters().get(Counter.SACK_RESENT_PKTS), "the SACK listed both");
        List<Integer> psns = w.capA.requestPsns();
        assertEquals(List.of(1, 3), psns.subList(8, psns.size()), "exactly the two lost ones resent");
        // the stripe could only be rebuilt once the resent PSN 1 arrived (then 3 comes from the parity, or its resend)
        assertTrue(qb.counters().get(Counter.FEC_REPAIRED) <= 1);
    }
}
