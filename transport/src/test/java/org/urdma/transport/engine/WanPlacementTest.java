package org.urdma.transport.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.urdma.transport.counters.Counter;
import org.urdma.transport.driver.MemoryFabric;
import org.urdma.transport.impair.ImpairmentConfig;
import org.urdma.transport.link.MemoryLink;
import org.urdma.transport.recovery.LossRecovery;
import org.urdma.transport.wire.OpcodeTable;
import org.urdma.verbs.AccessFlags;
import org.urdma.verbs.MemoryRegion;
import org.urdma.verbs.PathMtu;
import org.urdma.verbs.QueuePair;
import org.urdma.verbs.ReceiveWorkRequest;
import org.urdma.verbs.SendFlags;
import org.urdma.verbs.SendWorkRequest;
import org.urdma.verbs.WcOpcode;
import org.urdma.verbs.WcStatus;
import org.urdma.verbs.WorkCompletion;
import org.urdma.verbs.WrOpcode;

/**
 * WAN mode end to end on two simulated devices: per-packet RETH, out-of-order placement and TC-SACK under a link that
 * reorders and drops. Every completion's bytes are checked the moment it is polled (the destination starts as the
 * complement of the source), so a completion that came before its message's last PSN would fail; guard bytes around
 * both registered regions must stay untouched.
 */
class WanPlacementTest {
    static final long MS = 1_000_000L;
    static final int WAN = OpcodeTable.UETH_TS | OpcodeTable.UETH_PER_PACKET_RETH | OpcodeTable.UETH_SACK;
    static final long REGION = 16L << 20;
    static final long GUARD = 4096;
    static final int MAX = 4 << 20;

    private record Msg(long id, WrOpcode op, long offset, int length) {
    }

    /** 30 % of the frames each way sent at once past the others (held 40 µs), 5 % lost; the 1000 messages once, 300 on other seeds. */
    @ParameterizedTest
    @CsvSource({"11,1000", "23,300", "37,300", "41,300", "53,300"})
    void mixedMessagesSurviveHeavyReorderingAndFivePercentLossWithEveryByteVerified(long seed, int messages) {
        run(rough(seed), rough(seed + 1), messages, seed * 0x5EED);
    }

    private static ImpairmentConfig rough(long seed) {
        return ImpairmentConfig.none().lossRandom(0.05, 0).delay(40_000, 0, 0).reorder(0.3, 0, 1).seed(seed);
    }

    @Test
    void cleanPathMovesEverySizeInOrder() {
        run(ImpairmentConfig.none(), ImpairmentConfig.none(), 40, 7);
    }

    private static void run(ImpairmentConfig aToB, ImpairmentConfig bToA, int count, long seed) {
        MemoryLink.Config link = MemoryLink.Config.defaults().withLatency(20_000);
        try (Rig r = new Rig(aToB, bToA, LossRecovery.sack(), link, 512)) {
            MemoryFabric.Connection c = MemoryFabric.Connection.defaults().withMtu(PathMtu.MTU_4096);
            QueuePair[] qp = r.wan(WAN, c, 256);
            MemorySegment segA = r.segment(REGION + 2 * GUARD);
            MemorySegment segB = r.segment(REGION + 2 * GUARD);
            segA.fill((byte) 0x5A);
            segB.fill((byte) 0x5A);
            MemoryRegion a = r.pdA.registerMemory(segA.asSlice(GUARD, REGION), AccessFlags.ALL);
            MemoryRegion b = r.pdB.registerMemory(segB.asSlice(GUARD, REGION), AccessFlags.ALL);
            SplittableRandom rnd = new SplittableRandom(seed);
            WorkCompletion[] wcs = new WorkCompletion[64];
            for (int i = 0; i < wcs.length; i++) wcs[i] = new WorkCompletion();
            long nextId = 1;
            int done = 0;
            int bigOnes = 0;
            while (done < count) {
                // one batch: messages in flight together get disjoint bytes (WAN placement may land overlapping WRITEs in any order)
                List<Msg> batch = new ArrayList<>();
                long used = 0;
                while (done + batch.size() < count && batch.size() < 48) {
                    int len = bigOnes < 3 && rnd.nextInt(8) == 0 ? MAX : (int) Math.min(MAX, Math.exp(rnd.nextDouble() * Math.log(MAX)));
                    len = Math.max(1, len);
                    if (used + len + 64 > REGION) break;
                    if (len == MAX) bigOnes++;
                    WrOpcode op = switch (rnd.nextInt(4)) {
                        case 0 -> WrOpcode.RDMA_WRITE;
                        case 1 -> WrOpcode.RDMA_READ;
                        case 2 -> WrOpcode.SEND;
                        default -> WrOpcode.RDMA_WRITE_WITH_IMM;
                    };
                    batch.add(new Msg(nextId++, op, used, len));
                    used += (len + 63) & ~63L;
                }
                ArrayDeque<Msg> sends = new ArrayDeque<>();
                ArrayDeque<Msg> recvs = new ArrayDeque<>();
                for (Msg m : batch) {
                    boolean fromA = m.op != WrOpcode.RDMA_READ;
                    MemorySegment src = (fromA ? a : b).segment().asSlice(m.offset, m.length);
                    MemorySegment dst = (fromA ? b : a).segment().asSlice(m.offset, m.length);
                    for (long k = 0; k < m.length; k++) {
                        byte v = (byte) rnd.nextInt();
                        src.set(ValueLayout.JAVA_BYTE, k, v);
                        dst.set(ValueLayout.JAVA_BYTE, k, (byte) ~v);
                    }
                    if (m.op == WrOpcode.SEND || m.op == WrOpcode.RDMA_WRITE_WITH_IMM) {
                        ReceiveWorkRequest rr = new ReceiveWorkRequest().wrId(m.id);
                        if (m.op == WrOpcode.SEND) rr.addSge(b, m.offset, m.length);
                        qp[1].postRecv(rr);
                        recvs.add(m);
                    }
                }
                for (Msg m : batch) {
                    SendWorkRequest w = new SendWorkRequest().wrId(m.id).opcode(m.op).flags(SendFlags.SIGNALED);
                    if (m.op == WrOpcode.RDMA_READ) {
                        w.addSge(a, m.offset, m.length).remote(b.address() + m.offset, b.rkey());
                    } else {
                        w.addSge(a, m.offset, m.length);
                        if (m.op != WrOpcode.SEND) w.remote(b.address() + m.offset, b.rkey());
                        if (m.op == WrOpcode.RDMA_WRITE_WITH_IMM) w.immData((int) m.id);
                    }
                    qp[0].postSend(w);
                    sends.add(m);
                }
                boolean ok = r.sim.runUntil(() -> {
                    int n = r.cqB.poll(wcs);
                    for (int i = 0; i < n; i++) checkRecv(wcs[i], recvs.poll(), a, b);
                    n = r.cqA.poll(wcs);
                    for (int i = 0; i < n; i++) checkSend(wcs[i], sends.poll(), a, b);
                    return sends.isEmpty() && recvs.isEmpty();
                }, 60_000 * MS);
                assertTrue(ok, "batch did not complete: " + sends.size() + " sends, " + recvs.size() + " receives left; "
                        + ((SoftQp) qp[0]).stats().policyNames());
                done += batch.size();
            }
            assertGuards(segA);
            assertGuards(segB);
            assertEquals(3, bigOnes, "4 MB messages in the mix");
            SoftQp qa = (SoftQp) qp[0];
            SoftQp qb = (SoftQp) qp[1];
            if (!aToB.isNone()) {
                assertTrue(qb.counters().get(Counter.OUT_OF_ORDER_PLACED) > 0, "packets placed out of order");
                assertTrue(qa.counters().get(Counter.OUT_OF_ORDER_PLACED) > 0, "READ responses placed out of order");
                assertTrue(qa.counters().get(Counter.SACK_RESENT_PKTS) > 0, "losses repaired from SACKs");
                assertTrue(qb.counters().get(Counter.SACKS_SENT) > 0);
            } else {
                assertEquals(0, qa.stats().get(Counter.RETRANSMITTED_PKTS));
            }
        }
    }

    private static void checkSend(WorkCompletion wc, Msg m, MemoryRegion a, MemoryRegion b) {
        assertTrue(m != null, "unexpected send completion " + wc);
        assertEquals(WcStatus.SUCCESS, wc.status, wc + " for " + m);
        assertEquals(m.id, wc.wrId, "send completions in order");
        // a READ's bytes arrived, a WRITE's or SEND's were all placed (the ACK covers its last PSN) by the time it completes
        assertEquals(-1, b.segment().asSlice(m.offset, m.length).mismatch(a.segment().asSlice(m.offset, m.length)),
                m + " complete when its completion came");
    }

    private static void checkRecv(WorkCompletion wc, Msg m, MemoryRegion a, MemoryRegion b) {
        assertTrue(m != null, "unexpected receive completion " + wc);
        assertEquals(WcStatus.SUCCESS, wc.status, wc + " for " + m);
        assertEquals(m.id, wc.wrId, "receive completions in order");
        assertEquals(m.length, wc.byteLen);
        if (m.op == WrOpcode.RDMA_WRITE_WITH_IMM) {
            assertEquals(WcOpcode.RECV_RDMA_WITH_IMM, wc.opcode);
            assertEquals((int) m.id, wc.immData);
        } else {
            assertEquals(WcOpcode.RECV, wc.opcode);
        }
        // a SEND or a WRITE with immediate: every byte is there when the receiver hears of it
        assertEquals(-1, a.segment().asSlice(m.offset, m.length).mismatch(b.segment().asSlice(m.offset, m.length)),
                m + " complete when its completion came");
    }

    private static void assertGuards(MemorySegment s) {
        for (long i = 0; i < GUARD; i++) {
            assertEquals((byte) 0x5A, s.get(ValueLayout.JAVA_BYTE, i), "guard byte " + i + " before the MR");
            assertEquals((byte) 0x5A, s.get(ValueLayout.JAVA_BYTE, GUARD + REGION + i), "guard byte " + i + " after the MR");
        }
    }
}
