package org.urdma.transport.engine;

import static org.junit.jupiter.api.Assertions.*;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.urdma.transport.driver.MemoryFabric;
import org.urdma.transport.impair.ImpairmentConfig;
import org.urdma.transport.rate.RateControl;
import org.urdma.transport.recovery.LossRecovery;
import org.urdma.verbs.AccessFlags;
import org.urdma.verbs.MemoryRegion;
import org.urdma.verbs.PathMtu;
import org.urdma.verbs.QpState;
import org.urdma.verbs.QpType;
import org.urdma.verbs.QueuePair;
import org.urdma.verbs.SendFlags;
import org.urdma.verbs.SendWorkRequest;
import org.urdma.verbs.WcStatus;
import org.urdma.verbs.WorkCompletion;
import org.urdma.verbs.WrOpcode;

/** Loss recovery and rate control are per QP: chosen before the QP connects, and the requester follows them. */
class QpPoliciesTest {
    static final long WINDOW = 8192;
    static final int LENGTH_THR = 4096;

    /** Creates an RC pair; A's QP gets {@code rate} before it leaves RESET. */
    private static QueuePair[] pair(Rig r, RateControl.Factory rate) {
        MemoryFabric.Connection c = MemoryFabric.Connection.defaults().withMtu(PathMtu.MTU_1024);
        QueuePair a = r.pdA.createQp(MemoryFabric.init(QpType.RC, r.cqA, 1024));
        QueuePair b = r.pdB.createQp(MemoryFabric.init(QpType.RC, r.cqB, 1024));
        ((SoftQp) a).policies(LossRecovery.goBackN(), rate);
        MemoryFabric.bringUp(a, r.fabric.b, b.qpNum(), 7, 5, c);
        MemoryFabric.bringUp(b, r.fabric.a, a.qpNum(), 5, 7, c);
        return new QueuePair[] {a, b};
    }

    /** RDMA WRITE packets A sends to {@code qpn}, with their send times (RoCEv2 over IPv4: BTH at byte 42). */
    private static List<Long> writesTo(Rig r, int qpn) {
        List<Long> times = new ArrayList<>();
        r.fabric.linkA.tap((frame, offset, length, now) -> {
            int op = frame.getByte(offset + 42) & 0x1F;
            int dest = (frame.getByte(offset + 47) & 0xFF) << 16 | (frame.getByte(offset + 48) & 0xFF) << 8
                    | (frame.getByte(offset + 49) & 0xFF);
            if (op >= 0x06 && op <= 0x0B && dest == qpn) times.add(now);
        });
        return times;
    }

    private static void postWrites(Rig r, QueuePair qp, MemoryRegion src, MemoryRegion dst, int n) {
        for (int i = 0; i < n; i++) {
            qp.postSend(new SendWorkRequest().wrId(i).opcode(WrOpcode.RDMA_WRITE).flags(SendFlags.SIGNALED)
                    .addSge(src, 0, 65536).remote(dst.address(), dst.rkey()));
        }
    }

    @Test
    void theWindowLimitHoldsAQpToLengthThrPerCcWindowWithinTwoPercentOverThousandsOfWindows() {
        try (Rig r = new Rig()) {
            QueuePair[] limited = pair(r, RateControl.windowLimit(LENGTH_THR, WINDOW));
            QueuePair[] free = pair(r, RateControl.none());
            MemoryRegion src = r.mrA(65536, AccessFlags.LOCAL_WRITE);
            MemoryRegion dst = r.mrB(65536, AccessFlags.ALL);
            List<Long> limitedTimes = writesTo(r, limited[1].qpNum());
            postWrites(r, limited[0], src, dst, 200); // 12.8 MB: more than 2000 windows' worth
            r.run(2_000_000); // the limited QP is still busy after 2 ms
            long t0 = limitedTimes.get(0);
            long windows = 2000;
            r.sim.runUntil(() -> r.sim.now() >= t0 + windows * WINDOW, 1_000_000_000L);
            long packets = limitedTimes.stream().filter(t -> t < t0 + windows * WINDOW).count();
            double expected = windows * LENGTH_THR / 1024.0; // 1 KiB packets
            assertEquals(1.0, packets / expected, 0.02, packets + " packets in " + windows + " windows");
            // the same device's QP without a limit is not held back
            List<Long> freeTimes = writesTo(r, free[1].qpNum());
            postWrites(r, free[0], src, dst, 4);
            r.run(200_000);
            assertEquals(256, freeTimes.size(), "an unlimited QP sends its 256 KiB at once");
            assertTrue(freeTimes.get(255) - freeTimes.get(0) < 100 * WINDOW, "within " + (freeTimes.get(255) - freeTimes.get(0)) + " ns");
        }
    }

    @Test
    void policiesAreChosenPerQpBeforeItConnectsAndRefusedAfter() {
        try (Rig r = new Rig()) {
            QueuePair[] limited = pair(r, RateControl.windowLimit(LENGTH_THR, WINDOW));
            QueuePair[] plain = r.rc();
            assertEquals("go-back-N, window:4096/8192", ((SoftQp) limited[0]).stats().policyNames());
            assertEquals("go-back-N, none", ((SoftQp) plain[0]).stats().policyNames(), "the device's defaults");
            assertEquals(QpState.RTS, limited[0].state());
            IllegalStateException e = assertThrows(IllegalStateException.class,
                    () -> ((SoftQp) limited[0]).policies(LossRecovery.goBack0(), RateControl.none()));
            assertTrue(e.getMessage().startsWith("qp_state: policies are chosen in RESET or INIT"), e.getMessage());
        }
    }

    /**
     * A scoreboard-style policy (test only): a lost PSN is resent by itself through {@code resend}, from the policy's
     * own retransmit pass, and new packets go on after it; against a go-back-N responder it then rewinds to the PSN
     * after it, so the message completes.
     */
    static final class ResendLostAlone implements LossRecovery {
        final List<Integer> resent = new ArrayList<>();
        private int pending = -1;

        @Override
        public void onLoss(int psn, org.urdma.transport.recovery.LossCause cause, Retransmitter requester, long now) {
            pending = psn;
        }

        @Override
        public int retransmit(Retransmitter requester, long now) {
            if (pending < 0 || !requester.resend(pending, now)) return 0;
            resent.add(pending);
            requester.rewind(org.urdma.transport.wire.Psn.add(pending, 1));
            pending = -1;
            return 1;
        }

        @Override
        public int expectedAfterGap(int expectedPsn, int messageStartPsn) {
            return expectedPsn;
        }

        @Override
        public boolean discardsPartialMessage() {
            return false;
        }

        @Override
        public int ackReqInterval() {
            return 64;
        }

        @Override
        public String name() {
            return "resend-lost-alone";
        }
    }

    @Test
    void aPolicyCanResendExactlyTheLostPacketThroughTheRequester() {
        ResendLostAlone policy = new ResendLostAlone();
        LossRecovery.Factory factory = new LossRecovery.Factory() {
            @Override
            public LossRecovery create() {
                return policy;
            }

            @Override
            public String name() {
                return policy.name();
            }
        };
        // the 5th frame A sends is lost: PSN 4 of the first WRITE
        try (Rig r = new Rig(ImpairmentConfig.dropEvery(5), ImpairmentConfig.none(), LossRecovery.goBackN(),
                org.urdma.transport.link.MemoryLink.Config.defaults())) {
            MemoryFabric.Connection c = MemoryFabric.Connection.defaults().withMtu(PathMtu.MTU_1024);
            QueuePair a = r.pdA.createQp(MemoryFabric.init(QpType.RC, r.cqA, 64));
            QueuePair b = r.pdB.createQp(MemoryFabric.init(QpType.RC, r.cqB, 64));
            ((SoftQp) a).policies(factory, RateControl.none());
            MemoryFabric.bringUp(a, r.fabric.b, b.qpNum(), 0, 0, c);
            MemoryFabric.bringUp(b, r.fabric.a, a.qpNum(), 0, 0, c);
            List<Integer> psns = new ArrayList<>();
            r.fabric.linkA.tap((frame, offset, length, now) -> psns.add((frame.getByte(offset + 51) & 0xFF) << 16
                    | (frame.getByte(offset + 52) & 0xFF) << 8 | (frame.getByte(offset + 53) & 0xFF)));
            MemoryRegion src = r.mrA(8192, AccessFlags.LOCAL_WRITE);
            MemoryRegion dst = r.mrB(8192, AccessFlags.ALL);
            for (int i = 0; i < 8192; i++) src.segment().set(java.lang.foreign.ValueLayout.JAVA_BYTE, i, (byte) (i * 7));
            a.postSend(new SendWorkRequest().wrId(1).opcode(WrOpcode.RDMA_WRITE).flags(SendFlags.SIGNALED)
                    .addSge(src, 0, 8192).remote(dst.address(), dst.rkey()));
            WorkCompletion wc = r.awaitA(1, 1_000_000_000L).get(0);
            assertEquals(WcStatus.SUCCESS, wc.status, wc.toString());
            assertEquals(-1, src.segment().mismatch(dst.segment()), "remote memory verified");
            // every 5th frame is lost: PSN 4 first, then (frame 10) PSN 5 of the rewind
            assertEquals(4, policy.resent.get(0), "PSN 4 was resent by itself");
            assertEquals(List.of(0, 1, 2, 3, 4, 5, 6, 7, 4, 5), psns.subList(0, 10),
                    "the lost packet alone, then the rest again from the PSN after it");
        }
    }

    /** retry_cnt as the IB specification counts it: 7 is seven retries (rxe retries forever on 7). */
    @Test
    void retryCountSevenMeansSevenRetriesThenRetryExceeded() {
        ImpairmentConfig blackHole = ImpairmentConfig.none().lossRandom(1.0, 0);
        try (Rig r = new Rig(blackHole, ImpairmentConfig.none(), LossRecovery.goBackN(), org.urdma.transport.link.MemoryLink.Config.defaults())) {
            QueuePair[] qp = r.connect(QpType.RC, MemoryFabric.Connection.defaults().withTimeout(8).withRetryCnt(7));
            MemoryRegion src = r.mrA(64, AccessFlags.LOCAL_WRITE);
            qp[0].postSend(new SendWorkRequest().wrId(1).opcode(WrOpcode.SEND).flags(SendFlags.SIGNALED).addSge(src, 0, 64));
            WorkCompletion wc = r.awaitA(1, 1_000_000_000L).get(0);
            assertEquals(WcStatus.RETRY_EXC_ERR, wc.status, wc.toString());
            assertEquals(8, r.fabric.linkA.sentFrames(), "the first transmission and seven retries");
        }
    }

    /** Records the ACKs it hears; wants RTTs and holds a window when asked to. */
    private static final class AckRecorder implements RateControl {
        final boolean wantsRtt;
        final long window;
        final List<Long> rtts = new ArrayList<>();
        long firstAckAt = -1;

        AckRecorder(boolean wantsRtt, long window) {
            this.wantsRtt = wantsRtt;
            this.window = window;
        }

        RateControl.Factory factory() {
            return RateControl.Factory.of("recorder", () -> this);
        }

        @Override
        public long nextSendTime(long now) {
            return Long.MIN_VALUE;
        }

        @Override
        public void onSent(int payloadBytes, long now) {
        }

        @Override
        public void onAck(long rttNanos, long now) {
            if (firstAckAt < 0) firstAckAt = now;
            if (rttNanos >= 0) rtts.add(rttNanos);
        }

        @Override
        public boolean wantsRtt() {
            return wantsRtt;
        }

        @Override
        public long windowBytes() {
            return window;
        }

        @Override
        public String name() {
            return "recorder";
        }
    }

    @Test
    void aRateControlThatWantsRttsGetsRoundTripSamplesFromDcAcksAndOneThatDoesNotGetsNone() {
        try (Rig r = new Rig()) {
            AckRecorder wants = new AckRecorder(true, Long.MAX_VALUE);
            AckRecorder not = new AckRecorder(false, Long.MAX_VALUE);
            QueuePair[] timed = pair(r, wants.factory());
            QueuePair[] plain = pair(r, not.factory());
            MemoryRegion src = r.mrA(65536, AccessFlags.LOCAL_WRITE);
            MemoryRegion dst = r.mrB(65536, AccessFlags.ALL);
            // 2 MiB: four times the PSN window, so new packets follow ACKs and are timed again
            postWrites(r, timed[0], src, dst, 32);
            postWrites(r, plain[0], src, dst, 32);
            r.run(20_000_000);
            assertTrue(wants.rtts.size() >= 2, "samples: " + wants.rtts);
            assertTrue(wants.rtts.stream().allMatch(t -> t > 0), "samples: " + wants.rtts);
            assertTrue(not.firstAckAt >= 0, "the other QP was acknowledged");
            assertEquals(List.of(), not.rtts, "no samples for a policy that does not want them");
        }
    }

    @Test
    void aRateControlsWindowBoundsThePacketsSentBeforeTheFirstAckAndTheTransferStillCompletes() {
        try (Rig r = new Rig()) {
            AckRecorder w = new AckRecorder(false, 3 * 1024 + 1); // rounds up to 4 packets of 1 KiB
            QueuePair[] qp = pair(r, w.factory());
            MemoryRegion src = r.mrA(65536, AccessFlags.LOCAL_WRITE);
            MemoryRegion dst = r.mrB(65536, AccessFlags.ALL);
            List<Long> times = writesTo(r, qp[1].qpNum());
            postWrites(r, qp[0], src, dst, 2);
            r.run(5_000_000);
            assertEquals(128, times.size(), "two 64 KiB WRITEs, no resends: ACKs came before the window closed");
            long beforeAck = times.stream().filter(t -> t < w.firstAckAt).count();
            assertTrue(beforeAck <= 4, beforeAck + " packets before the first ACK");
            List<WorkCompletion> wcs = r.awaitA(2, 1_000_000_000L);
            assertTrue(wcs.stream().allMatch(c -> c.status == WcStatus.SUCCESS), wcs.toString());
        }
    }
}
