package org.urdma.transport.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.Arena;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.urdma.transport.counters.Counter;
import org.urdma.transport.counters.EngineCounters;
import org.urdma.transport.driver.MemoryFabric;
import org.urdma.transport.driver.SimulatedDriver;
import org.urdma.transport.impair.ImpairmentConfig;
import org.urdma.transport.journal.EventJournal;
import org.urdma.transport.link.LinkFraming;
import org.urdma.transport.link.MemoryLink;
import org.urdma.transport.rate.FixedRate;
import org.urdma.transport.recovery.LossRecovery;
import org.urdma.transport.wire.FramingKind;
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
 * WAN mode's resends leave at the QP's rate like first transmissions. Through the real-time switch the ACK timeout's
 * resend of a lost tail (everything the receiver never reported on: up to the whole window) left at line rate into the
 * 1 Gbit/s bottleneck; the switch paused the sender and dropped what overran its headroom, the next tail was lost
 * too, and the run stalled from timeout to timeout.
 */
class WanPacedResendTest {
    static final long START = 1_000_000_000L;
    static final long RATE = 1_000_000_000L;
    static final int BURST = 4096; // four 1 KiB packets
    static final long PACKET_NS = 1024 * 8; // 8.192 us per 1 KiB packet at 1 Gbit/s
    static final int WAN = OpcodeTable.UETH_TS | OpcodeTable.UETH_PER_PACKET_RETH | OpcodeTable.UETH_SACK;

    /** Sends {@code packets} 1 KiB packets of one WRITE from A (first PSN 1) with {@code lost} dropped once; A's request times. */
    private static List<long[]> writeAndCapture(int packets, Set<Integer> lost, long[] timeouts) {
        return writeAndCapture(packets, lost, 0, timeouts);
    }

    /** As above, and A hears no response before {@code START + deafUntil} (ACKs lost, or a stalled switch on the way). */
    private static List<long[]> writeAndCapture(int packets, Set<Integer> lost, long deafUntil, long[] timeouts) {
        return writeAndCapture(packets, lost, deafUntil, timeouts, new long[1], new long[1]);
    }

    /** As above; also counts A's resent packets and B's ACKs. */
    private static List<long[]> writeAndCapture(int packets, Set<Integer> lost, long deafUntil, long[] timeouts, long[] resent,
                                                long[] acks) {
        DeviceConfig ca = DeviceConfig.named("a", 1).withLossRecovery(LossRecovery.sack());
        DeviceConfig cb = DeviceConfig.named("b", 2).withLossRecovery(LossRecovery.sack());
        MemoryLink[] ends = MemoryLink.pair(MemoryLink.Config.defaults().withLatency(50_000).withSlots(4096),
                new LinkFraming(FramingKind.ROCE2, ca.mac(), ca.gid().toBytes()),
                new LinkFraming(FramingKind.ROCE2, cb.mac(), cb.gid().toBytes()), ImpairmentConfig.none(), ImpairmentConfig.none());
        WanSackTest.DropFirst linkB = new WanSackTest.DropFirst(ends[1], lost);
        SoftDevice a = new SoftDevice(ca, new Deaf(ends[0], START + deafUntil), new SplittableRandom(1), START, EngineCounters.inMemory("a"), EventJournal.NONE);
        SoftDevice b = new SoftDevice(cb, linkB, new SplittableRandom(2), START, EngineCounters.inMemory("b"), EventJournal.NONE);
        SimulatedDriver sim = new SimulatedDriver(START, a, b);
        ProtectionDomain pdA = a.allocPd(), pdB = b.allocPd();
        CompletionQueue cqA = a.createCq(64, null);
        QueuePair qa = pdA.createQp(MemoryFabric.init(QpType.RC, cqA, 64));
        QueuePair qb = pdB.createQp(MemoryFabric.init(QpType.RC, b.createCq(64, null), 64));
        ((SoftQp) qa).policies(LossRecovery.sack(), FixedRate.factory(RATE, BURST));
        ((SoftQp) qa).wan(WAN, 0, 0);
        ((SoftQp) qb).wan(WAN, 0, 0);
        // ACK timeout 4.096 us x 2^10 = 4 ms: the lost tail is found by it
        MemoryFabric.Connection c = MemoryFabric.Connection.defaults().withMtu(PathMtu.MTU_1024).withTimeout(10);
        MemoryFabric.bringUp(qa, b, qb.qpNum(), 100, 1, c);
        MemoryFabric.bringUp(qb, a, qa.qpNum(), 1, 100, c);
        List<long[]> sent = new ArrayList<>(); // (time, PSN) of A's requests
        WanSackTest.Capture decode = new WanSackTest.Capture();
        ends[0].tap((f, off, len, now) -> {
            Packet p = new Packet();
            decode.framing.decode(f, off, len, p);
            if (OpcodeTable.has(p.opcode, OpcodeTable.REQ)) sent.add(new long[] {now, p.psn});
        });
        ends[1].tap((f, off, len, now) -> acks[0]++);
        int length = packets * 1024;
        MemoryRegion src = pdA.registerMemory(Arena.ofAuto().allocate(length), AccessFlags.LOCAL_WRITE);
        MemoryRegion dst = pdB.registerMemory(Arena.ofAuto().allocate(length), AccessFlags.ALL);
        for (int i = 0; i < length; i++) src.segment().set(ValueLayout.JAVA_BYTE, i, (byte) (i * 7));
        qa.postSend(new SendWorkRequest().wrId(1).opcode(WrOpcode.RDMA_WRITE).flags(SendFlags.SIGNALED)
                .addSge(src, 0, length).remote(dst.address(), dst.rkey()));
        WorkCompletion[] wc = {new WorkCompletion()};
        assertTrue(sim.runUntil(() -> cqA.poll(wc) > 0, 2_000_000_000L), "the WRITE completed");
        assertEquals(WcStatus.SUCCESS, wc[0].status);
        assertEquals(-1, src.segment().mismatch(dst.segment()), "every byte arrived");
        timeouts[0] = ((SoftQp) qa).stats().get(Counter.ACK_TIMEOUTS);
        resent[0] = ((SoftQp) qa).stats().get(Counter.RETRANSMITTED_PKTS);
        return sent;
    }

    @Test
    void aTimeoutsResendOfALostTailLeavesAtTheQpsRate() {
        // PSNs 101..300 of 300 lost: nothing after them arrives, so no SACK lists them and only the timeout finds them
        Set<Integer> lost = new HashSet<>();
        for (int psn = 101; psn <= 300; psn++) lost.add(psn);
        long[] timeouts = new long[1];
        List<long[]> sent = writeAndCapture(300, lost, timeouts);
        assertTrue(timeouts[0] >= 1, "the ACK timeout found the tail");
        assertEquals(300 + 200, sent.size(), "each lost PSN resent once");
        assertPaced(sent);
    }

    @Test
    void aTimeoutWhileOnlyTheAcksAreLateResendsTheOldestAndAProbeNotTheWindow() {
        // B gets all 300 packets; A hears nothing for 10 ms (two and a half ACK timeouts)
        long[] timeouts = new long[1];
        List<long[]> sent = writeAndCapture(300, Set.of(), 10_000_000L, timeouts);
        assertTrue(timeouts[0] >= 2, "the ACK timer fired while A heard nothing: " + timeouts[0]);
        int resent = sent.size() - 300;
        assertTrue(resent <= 2 * timeouts[0], resent + " packets resent for " + timeouts[0] + " timeouts");
        assertEquals(300, sent.get(299)[1], "first sends in order");
        for (int i = 300; i < sent.size(); i++) {
            long psn = sent.get(i)[1];
            assertTrue(psn == 1 || psn == 300, "a timeout resends the oldest PSN and the newest (a probe), not PSN " + psn);
        }
    }

    @Test
    void aTimeoutInTheMiddleOfAMessageProbesWithTheNewestPsnSentNotOneNotSentYet() {
        // 2000 packets take 16 ms at 1 Gbit/s: the timeout at 4 ms comes while the WRITE is still being sent
        long[] timeouts = new long[1], resent = new long[1];
        List<long[]> sent = writeAndCapture(2000, Set.of(), 10_000_000L, timeouts, resent, new long[1]);
        assertTrue(timeouts[0] >= 1, "timeouts " + timeouts[0]);
        Set<Long> seen = new HashSet<>();
        long highest = 0, repeats = 0;
        for (long[] s : sent) {
            if (!seen.add(s[1])) {
                repeats++;
                assertTrue(s[1] <= highest, "PSN " + s[1] + " resent before it was ever sent (highest sent " + highest + ")");
            } else {
                assertEquals(highest + 1, s[1], "first transmissions in PSN order");
                highest = s[1];
            }
        }
        assertEquals(repeats, resent[0], "retransmitted_pkts counts the packets sent again, not first transmissions");
    }

    @Test
    void aPacedFlowGetsAnAckPerSixteenPacketsOrSoNotPerPacket() {
        // 1 KiB packets at 1 Gbit/s arrive every 8 us: a 20 us ACK delay answered every second or third one, and at
        // 4 KiB (33 us apart) every one; that flood of ACKs overran the sender's receive ring through the switch
        long[] acks = new long[1];
        writeAndCapture(2000, Set.of(), 0, new long[1], new long[1], acks);
        assertTrue(acks[0] <= 2000 / 8, acks[0] + " ACKs for 2000 packets");
    }

    @Test
    void consecutiveTimeoutsBackOffSoRetryCntOutlastsAPathSilentForLongerThanSevenTimeouts() {
        // A hears nothing for 40 ms: eight 4 ms timeouts (retry_cnt 7) would end in RETRY_EXC_ERR at 32 ms
        long[] timeouts = new long[1];
        List<long[]> sent = writeAndCapture(300, Set.of(), 40_000_000L, timeouts);
        assertTrue(timeouts[0] >= 3 && timeouts[0] <= 5, "timeouts at 4, 12, 28 and 60 ms: " + timeouts[0]);
        assertEquals(300 + 2 * timeouts[0], sent.size(), "each timeout resent the oldest PSN and a probe");
    }

    /** A's link end, deaf to responses before {@code until}. */
    private static final class Deaf extends FilteredLink {
        private final long until;

        Deaf(MemoryLink inner, long until) {
            super(inner);
            this.until = until;
        }

        @Override
        boolean accept(org.urdma.transport.packet.RxPacket p, long now) {
            return now >= until;
        }
    }

    /** Any run of k request frames, first sends and resends alike, spans at least (k - burst) packet times. */
    private static void assertPaced(List<long[]> sent) {
        int burstPackets = BURST / 1024;
        int k = 32;
        for (int i = 0; i + k < sent.size(); i++) {
            long span = sent.get(i + k)[0] - sent.get(i)[0];
            assertTrue(span >= (k - burstPackets) * PACKET_NS,
                    "frames " + i + ".." + (i + k) + " (PSN " + sent.get(i)[1] + "..) left within " + span + " ns");
        }
    }
}
