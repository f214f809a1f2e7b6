package org.urdma.transport.engine;

import static org.junit.jupiter.api.Assertions.*;

import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.urdma.transport.driver.MemoryFabric;
import org.urdma.transport.impair.ImpairmentConfig;
import org.urdma.transport.link.MemoryLink;
import org.urdma.transport.recovery.LossRecovery;
import org.urdma.verbs.AccessFlags;
import org.urdma.verbs.MemoryRegion;
import org.urdma.verbs.PathMtu;
import org.urdma.verbs.QpType;
import org.urdma.verbs.QueuePair;
import org.urdma.verbs.ReceiveWorkRequest;
import org.urdma.verbs.SendFlags;
import org.urdma.verbs.SendWorkRequest;
import org.urdma.verbs.WcStatus;
import org.urdma.verbs.WorkCompletion;
import org.urdma.verbs.WrOpcode;

/**
 * The SIGCOMM 2016 experiment (Guo et al., §4.1): a switch drops every packet whose IP ID ends in 0xff, i.e.
 * one in 256, deterministically; A moves 4 MB messages (4096 packets of 1 KB) to B by SEND, WRITE or READ.
 * Go-back-0 restarts the message on every loss and never completes (with retry_cnt 7 counted as the IB specification
 * counts it, the QP gives up after seven fruitless retries: RETRY_EXC_ERR, as a NIC would); go-back-N completes.
 * The link runs at 100 Gbit/s with 5 us one-way latency and the requester keeps at most 100 packets
 * unacknowledged: a window that divides 256 would make the deterministic drop hit the same PSN on every
 * retransmission round (a resonance of this synthetic rule, absent when timing jitters as on real links).
 */
class GoBackZeroLivelockTest {
    static final int MSG = 4 << 20;
    /** The bound: 25 times the packets of one message. */
    static final long PACKET_BUDGET = 25L * (MSG / 1024);

    enum Verb { SEND, WRITE, READ }

    private static long run(LossRecovery.Factory rel, Verb verb, int[] completions) {
        ImpairmentConfig drop = ImpairmentConfig.dropEvery(256);
        // data flows A->B for SEND/WRITE, B->A (READ responses) for READ: the drop sits on the data direction
        ImpairmentConfig ab = verb == Verb.READ ? ImpairmentConfig.none() : drop;
        ImpairmentConfig ba = verb == Verb.READ ? drop : ImpairmentConfig.none();
        try (Rig r = new Rig(ab, ba, rel, MemoryLink.Config.defaults().withLatency(5_000).withGbps(100).withSlots(256), 100)) {
            QueuePair[] qp = r.connect(QpType.RC, MemoryFabric.Connection.defaults().withMtu(PathMtu.MTU_1024).withRetryCnt(7));
            MemoryRegion a = r.mrA(MSG, AccessFlags.LOCAL_WRITE);
            MemoryRegion b = r.mrB(MSG, AccessFlags.ALL);
            int messages = 2;
            for (int i = 0; i < messages; i++) {
                SendWorkRequest wr = new SendWorkRequest().wrId(i).flags(SendFlags.SIGNALED);
                switch (verb) {
                    case SEND -> {
                        qp[1].postRecv(new ReceiveWorkRequest().wrId(i).addSge(b, 0, MSG));
                        wr.opcode(WrOpcode.SEND).addSge(a, 0, MSG);
                    }
                    case WRITE -> wr.opcode(WrOpcode.RDMA_WRITE).addSge(a, 0, MSG).remote(b.address(), b.rkey());
                    case READ -> wr.opcode(WrOpcode.RDMA_READ).addSge(a, 0, MSG).remote(b.address(), b.rkey());
                }
                qp[0].postSend(wr);
            }
            MemoryLink data = verb == Verb.READ ? r.fabric.linkB : r.fabric.linkA;
            WorkCompletion[] wc = {new WorkCompletion()};
            r.sim.runUntil(() -> {
                while (r.cqA.poll(wc) > 0) {
                    if (wc[0].status == WcStatus.SUCCESS) {
                        completions[0]++;
                    } else if (completions[1]++ == 0) {
                        assertEquals(WcStatus.RETRY_EXC_ERR, wc[0].status, wc[0].toString()); // then the rest flush
                        SoftQp q = (SoftQp) qp[0]; // the peer answered every round: the retries went on what it reported
                        assertEquals(0, q.stats().retryTimeoutsSinceProgress());
                        assertTrue(verb == Verb.READ ? q.stats().retryGapsSinceProgress() > 0 : q.stats().retryNaksSinceProgress() > 0,
                                q.stats().retryNaksSinceProgress() + " NAKs, " + q.stats().retryGapsSinceProgress() + " gaps");
                    }
                }
                return completions[0] == messages || completions[1] > 0 || data.sentFrames() > PACKET_BUDGET;
            }, 100_000_000_000L);
            assertTrue(data.lostFrames() > 0);
            return data.sentFrames();
        }
    }

    @ParameterizedTest
    @EnumSource(Verb.class)
    void goBackZeroMakesNoProgressWhereGoBackNCompletes(Verb verb) {
        int[] gb0 = {0, 0};
        long gb0Packets = run(LossRecovery.goBack0(), verb, gb0);
        int[] gbn = {0, 0};
        long gbnPackets = run(LossRecovery.goBackN(), verb, gbn);
        System.out.printf("SIGCOMM 2016, %s 2 x 4 MB, drop 1/256: go-back-0 %d messages in %d packets; go-back-N %d messages in %d packets%n",
                verb, gb0[0], gb0Packets, gbn[0], gbnPackets);
        assertEquals(0, gb0[0], "go-back-0 livelocks: no message completes within " + PACKET_BUDGET + " packets");
        // stuck until it gives up: retry_cnt 7 rounds of about 256 packets each, every one of them in vain
        assertTrue(gb0[1] > 0 || gb0Packets > PACKET_BUDGET, "go-back-0 either kept the link busy or gave up");
        assertTrue(gb0Packets > 7 * 200L, "go-back-0 retried the message retry_cnt times: " + gb0Packets + " packets");
        assertEquals(0, gbn[1], "go-back-N ends no message in error");
        assertEquals(2, gbn[0], "go-back-N completes");
        assertTrue(gbnPackets < PACKET_BUDGET / 2, "go-back-N wastes at most about a window per loss: " + gbnPackets);
    }
}
