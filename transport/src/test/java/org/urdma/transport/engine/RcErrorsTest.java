package org.urdma.transport.engine;

import static org.junit.jupiter.api.Assertions.*;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;
import org.urdma.transport.counters.Counter;
import org.urdma.transport.wire.Opcode;
import org.urdma.transport.wire.Packet;
import org.junit.jupiter.api.Test;
import org.urdma.transport.driver.MemoryFabric;
import org.urdma.transport.impair.ImpairmentConfig;
import org.urdma.transport.link.MemoryLink;
import org.urdma.transport.recovery.LossRecovery;
import org.urdma.verbs.AccessFlags;
import org.urdma.verbs.MemoryRegion;
import org.urdma.verbs.QpAttrMask;
import org.urdma.verbs.QpAttributes;
import org.urdma.verbs.QpState;
import org.urdma.verbs.QpType;
import org.urdma.verbs.QueuePair;
import org.urdma.verbs.ReceiveWorkRequest;
import org.urdma.verbs.SendFlags;
import org.urdma.verbs.SendWorkRequest;
import org.urdma.verbs.WcOpcode;
import org.urdma.verbs.WcStatus;
import org.urdma.verbs.WorkCompletion;
import org.urdma.verbs.WrOpcode;

/** Each work completion status arises where the IBTA spec (as Linux rxe implements it) says. */
class RcErrorsTest {
    static final long MS = 1_000_000L;
    static final int ALL = AccessFlags.ALL;

    /** A region registered over the middle of a bigger segment, so bytes on both sides can be watched. */
    record Guarded(MemorySegment whole, MemoryRegion mr) {
        boolean outsideUntouched(byte guard) {
            for (long i = 0; i < 4096; i++) {
                if (whole.get(ValueLayout.JAVA_BYTE, i) != guard) return false;
                if (whole.get(ValueLayout.JAVA_BYTE, whole.byteSize() - 1 - i) != guard) return false;
            }
            return true;
        }
    }

    static Guarded guarded(Rig r, int access) {
        MemorySegment whole = r.segment(4096 + 8192 + 4096);
        whole.fill((byte) 0x5A);
        MemoryRegion mr = r.pdB.registerMemory(whole.asSlice(4096, 8192), access);
        return new Guarded(whole, mr);
    }

    private static WorkCompletion writeAndFail(Rig r, QueuePair qp, MemoryRegion src, long va, int rkey, int len) {
        qp.postSend(new SendWorkRequest().wrId(1).opcode(WrOpcode.RDMA_WRITE).flags(SendFlags.SIGNALED)
                .addSge(src, 0, len).remote(va, rkey));
        return r.awaitA(1, 100 * MS).get(0);
    }

    @Test
    void wrongRkeyGivesRemoteAccessErrorAndTouchesNothing() {
        try (Rig r = new Rig()) {
            QueuePair[] qp = r.rc();
            MemoryRegion src = r.mrA(8192, AccessFlags.LOCAL_WRITE);
            src.segment().fill((byte) 1);
            Guarded g = guarded(r, ALL);
            WorkCompletion wc = writeAndFail(r, qp[0], src, g.mr().address(), g.mr().rkey() ^ 0x100, 2048);
            assertEquals(WcStatus.REM_ACCESS_ERR, wc.status, wc.toString());
            assertEquals(QpState.ERR, qp[0].state());
            assertTrue(g.outsideUntouched((byte) 0x5A));
            assertEquals(-1, g.mr().segment().mismatch(MemorySegment.ofArray(new byte[8192]).fill((byte) 0x5A)));
        }
    }

    @Test
    void outOfBoundsWriteGivesRemoteAccessErrorAndNeverWritesPastTheRegion() {
        try (Rig r = new Rig()) {
            QueuePair[] qp = r.rc();
            MemoryRegion src = r.mrA(8192, AccessFlags.LOCAL_WRITE);
            src.segment().fill((byte) 1);
            Guarded g = guarded(r, ALL);
            // starts inside, ends 1 byte past the end
            WorkCompletion wc = writeAndFail(r, qp[0], src, g.mr().address() + 4096, g.mr().rkey(), 4097);
            assertEquals(WcStatus.REM_ACCESS_ERR, wc.status, wc.toString());
            assertTrue(g.outsideUntouched((byte) 0x5A));
            assertEquals(0x5A, g.mr().segment().get(ValueLayout.JAVA_BYTE, 4096)); // nothing placed at all
        }
    }

    @Test
    void outOfBoundsReadAndBeforeStartAreRemoteAccessErrors() {
        try (Rig r = new Rig()) {
            QueuePair[] qp = r.rc();
            MemoryRegion dst = r.mrA(8192, AccessFlags.LOCAL_WRITE);
            Guarded g = guarded(r, ALL);
            qp[0].postSend(new SendWorkRequest().wrId(2).opcode(WrOpcode.RDMA_READ).flags(SendFlags.SIGNALED)
                    .addSge(dst, 0, 16).remote(g.mr().address() - 8, g.mr().rkey()));
            WorkCompletion wc = r.awaitA(1, 100 * MS).get(0);
            assertEquals(WcStatus.REM_ACCESS_ERR, wc.status, wc.toString());
            assertEquals(0, dst.segment().get(ValueLayout.JAVA_BYTE, 0)); // no foreign bytes leaked
        }
    }

    @Test
    void missingRemoteWriteRightGivesRemoteAccessError() {
        try (Rig r = new Rig()) {
            QueuePair[] qp = r.rc();
            MemoryRegion src = r.mrA(4096, AccessFlags.LOCAL_WRITE);
            Guarded g = guarded(r, AccessFlags.LOCAL_WRITE | AccessFlags.REMOTE_READ);
            WorkCompletion wc = writeAndFail(r, qp[0], src, g.mr().address(), g.mr().rkey(), 100);
            assertEquals(WcStatus.REM_ACCESS_ERR, wc.status, wc.toString());
            assertTrue(g.outsideUntouched((byte) 0x5A));
            assertEquals(0x5A, g.mr().segment().get(ValueLayout.JAVA_BYTE, 0));
        }
    }

    @Test
    void rkeyOfAnotherProtectionDomainIsRejected() {
        try (Rig r = new Rig()) {
            QueuePair[] qp = r.rc();
            MemoryRegion src = r.mrA(4096, AccessFlags.LOCAL_WRITE);
            MemoryRegion other = r.fabric.b.allocPd().registerMemory(r.segment(4096), ALL);
            WorkCompletion wc = writeAndFail(r, qp[0], src, other.address(), other.rkey(), 100);
            assertEquals(WcStatus.REM_ACCESS_ERR, wc.status, wc.toString());
        }
    }

    @Test
    void unalignedAtomicIsAnInvalidRequest() {
        try (Rig r = new Rig()) {
            QueuePair[] qp = r.rc();
            MemoryRegion local = r.mrA(64, AccessFlags.LOCAL_WRITE);
            MemoryRegion remote = r.mrB(64, ALL);
            qp[0].postSend(new SendWorkRequest().wrId(3).opcode(WrOpcode.ATOMIC_FETCH_AND_ADD).flags(SendFlags.SIGNALED)
                    .addSge(local, 0, 8).remote(remote.address() + 4, remote.rkey()).atomic(1, 0));
            WorkCompletion wc = r.awaitA(1, 100 * MS).get(0);
            assertEquals(WcStatus.REM_INV_REQ_ERR, wc.status, wc.toString());
            assertEquals(0L, remote.segment().get(ValueLayout.JAVA_LONG, 0));
            assertEquals(0L, remote.segment().get(ValueLayout.JAVA_LONG, 8));
        }
    }

    @Test
    void readPostedOnUcFailsLocallyWithQpOperationError() {
        try (Rig r = new Rig()) {
            QueuePair[] qp = r.connect(QpType.UC, MemoryFabric.Connection.defaults());
            MemoryRegion local = r.mrA(64, AccessFlags.LOCAL_WRITE);
            MemoryRegion remote = r.mrB(64, ALL);
            qp[0].postSend(new SendWorkRequest().wrId(4).opcode(WrOpcode.RDMA_READ).flags(SendFlags.SIGNALED)
                    .addSge(local, 0, 8).remote(remote.address(), remote.rkey()));
            WorkCompletion wc = r.awaitA(1, 10 * MS).get(0);
            assertEquals(WcStatus.LOC_QP_OP_ERR, wc.status, wc.toString());
            assertEquals(WcOpcode.RDMA_READ, wc.opcode);
            assertEquals(0, r.fabric.linkA.sentFrames(), "nothing may go on the wire");
        }
    }

    @Test
    void badLkeyIsALocalProtectionError() {
        try (Rig r = new Rig()) {
            QueuePair[] qp = r.rc();
            MemoryRegion src = r.mrA(64, AccessFlags.LOCAL_WRITE);
            qp[0].postSend(new SendWorkRequest().wrId(5).opcode(WrOpcode.SEND).flags(SendFlags.SIGNALED)
                    .addSge(src.address(), 64, src.lkey() + 1));
            WorkCompletion wc = r.awaitA(1, 10 * MS).get(0);
            assertEquals(WcStatus.LOC_PROT_ERR, wc.status, wc.toString());
        }
    }

    @Test
    void receiveTooSmallFailsBothSides() {
        try (Rig r = new Rig()) {
            QueuePair[] qp = r.rc();
            MemoryRegion src = r.mrA(4096, AccessFlags.LOCAL_WRITE);
            MemoryRegion dst = r.mrB(4096, AccessFlags.LOCAL_WRITE);
            qp[1].postRecv(new ReceiveWorkRequest().wrId(9).addSge(dst, 0, 100));
            qp[0].postSend(new SendWorkRequest().wrId(6).opcode(WrOpcode.SEND).flags(SendFlags.SIGNALED).addSge(src, 0, 2000));
            assertEquals(WcStatus.REM_INV_REQ_ERR, r.awaitA(1, 10 * MS).get(0).status);
            WorkCompletion recv = r.awaitB(1, 10 * MS).get(0);
            assertEquals(WcStatus.LOC_LEN_ERR, recv.status, recv.toString());
            assertEquals(9, recv.wrId);
        }
    }

    @Test
    void rnrWithRetryZeroFailsAtOnce() {
        try (Rig r = new Rig()) {
            QueuePair[] qp = r.connect(QpType.RC, MemoryFabric.Connection.defaults().withRnrRetry(0));
            MemoryRegion src = r.mrA(64, AccessFlags.LOCAL_WRITE);
            qp[0].postSend(new SendWorkRequest().wrId(7).opcode(WrOpcode.SEND).flags(SendFlags.SIGNALED).addSge(src, 0, 64));
            WorkCompletion wc = r.awaitA(1, 10 * MS).get(0);
            assertEquals(WcStatus.RNR_RETRY_EXC_ERR, wc.status, wc.toString());
            assertTrue(r.sim.now() - Rig.START < MS, "no RNR wait with rnr_retry 0");
        }
    }

    @Test
    void rnrWithRetrySevenWaitsForeverUntilAReceiveIsPosted() {
        try (Rig r = new Rig()) {
            // min_rnr_timer 14 = 960 us between tries
            QueuePair[] qp = r.connect(QpType.RC, MemoryFabric.Connection.defaults().withRnrRetry(7).withMinRnrTimer(14));
            MemoryRegion src = r.mrA(64, AccessFlags.LOCAL_WRITE);
            MemoryRegion dst = r.mrB(64, AccessFlags.LOCAL_WRITE);
            src.segment().fill((byte) 9);
            qp[0].postSend(new SendWorkRequest().wrId(8).opcode(WrOpcode.SEND).flags(SendFlags.SIGNALED).addSge(src, 0, 64));
            r.run(200 * MS); // ~200 RNR NAKs, far more than any finite rnr_retry
            assertTrue(r.pendingA().isEmpty(), r.pendingA().toString());
            long naks = ((SoftQp) qp[1]).stats().get(Counter.RNR_NAKS_SENT);
            // spaced by the RNR timer of code 14 (960 us): about 200 in 200 ms, never more
            assertTrue(naks > 150 && naks <= 209, "rnr naks " + naks);
            qp[1].postRecv(new ReceiveWorkRequest().wrId(80).addSge(dst, 0, 64));
            WorkCompletion wc = r.awaitA(1, 10 * MS).get(0);
            assertEquals(WcStatus.SUCCESS, wc.status, wc.toString());
            assertEquals(WcStatus.SUCCESS, r.awaitB(1, MS).get(0).status);
            assertEquals(9, dst.segment().get(ValueLayout.JAVA_BYTE, 63));
        }
    }

    @Test
    void rnrRetryCountsDownThenFails() {
        try (Rig r = new Rig()) {
            QueuePair[] qp = r.connect(QpType.RC, MemoryFabric.Connection.defaults().withRnrRetry(3).withMinRnrTimer(1));
            MemoryRegion src = r.mrA(64, AccessFlags.LOCAL_WRITE);
            qp[0].postSend(new SendWorkRequest().wrId(8).opcode(WrOpcode.SEND).flags(SendFlags.SIGNALED).addSge(src, 0, 64));
            WorkCompletion wc = r.awaitA(1, 10 * MS).get(0);
            assertEquals(WcStatus.RNR_RETRY_EXC_ERR, wc.status, wc.toString());
            assertEquals(4, ((SoftQp) qp[1]).stats().get(Counter.RNR_NAKS_SENT), "first try + 3 retries");
        }
    }

    @Test
    void deadPeerGivesRetryExceededAfterRetryCntRetriesSpacedByTheAckTimeout() {
        ImpairmentConfig blackHole = ImpairmentConfig.none().lossRandom(1.0, 0);
        try (Rig r = new Rig(blackHole, ImpairmentConfig.none(), LossRecovery.goBackN(), MemoryLink.Config.defaults())) {
            int timeoutCode = 14; // 4.096 us * 2^14 = 67.1 ms
            long timeout = 4096L << timeoutCode;
            QueuePair[] qp = r.connect(QpType.RC, MemoryFabric.Connection.defaults().withTimeout(timeoutCode).withRetryCnt(3));
            MemoryRegion src = r.mrA(64, AccessFlags.LOCAL_WRITE);
            long t0 = r.sim.now();
            qp[0].postSend(new SendWorkRequest().wrId(9).opcode(WrOpcode.SEND).flags(SendFlags.SIGNALED).addSge(src, 0, 64));
            List<Long> sendTimes = new ArrayList<>();
            long[] seen = {0};
            WorkCompletion[] out = {new WorkCompletion()};
            boolean done = r.sim.runUntil(() -> {
                long n = r.fabric.linkA.sentFrames();
                while (seen[0] < n) { sendTimes.add(r.sim.now()); seen[0]++; }
                return r.cqA.poll(out) > 0;
            }, 10 * timeout);
            assertTrue(done);
            long tErr = r.sim.now();
            assertEquals(WcStatus.RETRY_EXC_ERR, out[0].status, out[0].toString());
            assertEquals(4, sendTimes.size(), "first transmission + retry_cnt=3 retries: " + sendTimes);
            assertEquals(4, ((SoftQp) qp[0]).stats().retryTimeoutsSinceProgress(), "three retries and the timeout that found none left");
            assertEquals(0, ((SoftQp) qp[0]).stats().retryNaksSinceProgress());
            for (int i = 1; i < sendTimes.size(); i++) {
                long gap = sendTimes.get(i) - sendTimes.get(i - 1);
                assertTrue(gap >= timeout && gap <= timeout + 4 * SoftDevice.TICK_NANOS, "gap " + gap + " vs timeout " + timeout);
            }
            assertTrue(sendTimes.get(0) - t0 < 10_000);
            long lastGap = tErr - sendTimes.get(3);
            assertTrue(lastGap >= timeout && lastGap <= timeout + 4 * SoftDevice.TICK_NANOS, "error after " + lastGap);
            assertEquals(QpState.ERR, qp[0].state());
        }
    }

    @Test
    void errorFlushesEveryOutstandingRequestAndLaterPosts() {
        try (Rig r = new Rig()) {
            QueuePair[] qp = r.rc();
            MemoryRegion src = r.mrA(4096, AccessFlags.LOCAL_WRITE);
            MemoryRegion remote = r.mrB(4096, ALL);
            qp[0].postSend(new SendWorkRequest().wrId(1).opcode(WrOpcode.RDMA_WRITE).addSge(src, 0, 16).remote(remote.address(), remote.rkey() + 7));
            for (int i = 2; i <= 5; i++) {
                qp[0].postSend(new SendWorkRequest().wrId(i).opcode(WrOpcode.RDMA_WRITE).addSge(src, 0, 16).remote(remote.address(), remote.rkey()));
            }
            List<WorkCompletion> wcs = r.awaitA(5, 10 * MS);
            assertEquals(WcStatus.REM_ACCESS_ERR, wcs.get(0).status);
            assertEquals(1, wcs.get(0).wrId);
            for (int i = 1; i < 5; i++) {
                assertEquals(WcStatus.WR_FLUSH_ERR, wcs.get(i).status, wcs.get(i).toString());
                assertEquals(i + 1, wcs.get(i).wrId);
            }
            // a request posted in ERR flushes too, as do receives
            qp[0].postSend(new SendWorkRequest().wrId(6).opcode(WrOpcode.SEND).addSge(src, 0, 16));
            qp[0].postRecv(new ReceiveWorkRequest().wrId(7).addSge(src, 0, 16));
            List<WorkCompletion> more = r.awaitA(2, MS);
            assertEquals(WcStatus.WR_FLUSH_ERR, more.get(0).status);
            assertEquals(WcStatus.WR_FLUSH_ERR, more.get(1).status);
            assertEquals(WcOpcode.RECV, more.get(1).opcode);
        }
    }

    @Test
    void modifyToErrFlushesPostedReceives() {
        try (Rig r = new Rig()) {
            QueuePair[] qp = r.rc();
            MemoryRegion dst = r.mrB(4096, AccessFlags.LOCAL_WRITE);
            for (int i = 0; i < 3; i++) qp[1].postRecv(new ReceiveWorkRequest().wrId(i).addSge(dst, 0, 16));
            qp[1].modify(new QpAttributes().state(QpState.ERR), QpAttrMask.STATE);
            List<WorkCompletion> wcs = r.awaitB(3, MS);
            for (WorkCompletion w : wcs) assertEquals(WcStatus.WR_FLUSH_ERR, w.status);
        }
    }

    @Test
    void postingBeforeRtsIsRejectedNamingTheState() {
        try (Rig r = new Rig()) {
            QueuePair qp = r.pdA.createQp(MemoryFabric.init(QpType.RC, r.cqA, 16));
            IllegalStateException e = assertThrows(IllegalStateException.class,
                    () -> qp.postSend(new SendWorkRequest().opcode(WrOpcode.SEND)));
            assertTrue(e.getMessage().contains("RESET"), e.getMessage());
            IllegalArgumentException e2 = assertThrows(IllegalArgumentException.class,
                    () -> qp.modify(new QpAttributes().state(QpState.RTR), QpAttrMask.STATE));
            assertTrue(e2.getMessage().contains("RESET -> RTR"), e2.getMessage());
        }
    }

    @Test
    void receiveBufferWithBadLkeyIsARemoteOperationalError() {
        try (Rig r = new Rig()) {
            QueuePair[] qp = r.rc();
            MemoryRegion src = r.mrA(64, AccessFlags.LOCAL_WRITE);
            MemoryRegion dst = r.mrB(64, AccessFlags.LOCAL_WRITE);
            qp[1].postRecv(new ReceiveWorkRequest().wrId(3).addSge(dst.address(), 64, dst.lkey() ^ 1));
            qp[0].postSend(new SendWorkRequest().wrId(4).opcode(WrOpcode.SEND).flags(SendFlags.SIGNALED).addSge(src, 0, 32));
            assertEquals(WcStatus.REM_OP_ERR, r.awaitA(1, 10 * MS).get(0).status);
            assertEquals(WcStatus.LOC_PROT_ERR, r.awaitB(1, MS).get(0).status);
            org.urdma.verbs.AsyncEvent e = new org.urdma.verbs.AsyncEvent();
            boolean fatal = false;
            while (r.fabric.b.pollAsyncEvent(e)) fatal |= e.type == org.urdma.verbs.AsyncEventType.QP_FATAL && e.element == qp[1];
            assertTrue(fatal, "the responder's QP went to ERR with an event");
        }
    }

    @Test
    void localInvalidateCompletesInOrderAndRevokesTheKey() {
        try (Rig r = new Rig()) {
            QueuePair[] qp = r.rc();
            MemoryRegion src = r.mrA(64, AccessFlags.LOCAL_WRITE);
            MemoryRegion mine = r.mrA(64, AccessFlags.ALL);
            MemoryRegion remote = r.mrB(64, AccessFlags.ALL);
            qp[0].postSend(new SendWorkRequest().wrId(1).opcode(WrOpcode.RDMA_WRITE).flags(SendFlags.SIGNALED)
                    .addSge(src, 0, 8).remote(remote.address(), remote.rkey()));
            qp[0].postSend(new SendWorkRequest().wrId(2).opcode(WrOpcode.LOCAL_INV).invalidateRkey(mine.rkey()).flags(SendFlags.SIGNALED));
            List<WorkCompletion> wcs = r.awaitA(2, 10 * MS);
            assertEquals(1, wcs.get(0).wrId);
            assertEquals(2, wcs.get(1).wrId);
            assertEquals(WcOpcode.LOCAL_INV, wcs.get(1).opcode);
            assertEquals(WcStatus.SUCCESS, wcs.get(1).status);
            assertFalse(mine.isValid());
        }
    }

    @Test
    void cqOverrunIsCountedNotFatalToTheEngine() {
        try (Rig r = new Rig()) {
            org.urdma.verbs.CompletionQueue small = r.fabric.a.createCq(4, null);
            QueuePair[] qp = r.fabric.connect(r.pdA, MemoryFabric.init(QpType.RC, small, 16), r.pdB,
                    MemoryFabric.init(QpType.RC, r.cqB, 16), MemoryFabric.Connection.defaults(), 1, 2);
            MemoryRegion src = r.mrA(64, AccessFlags.LOCAL_WRITE);
            MemoryRegion remote = r.mrB(64, AccessFlags.ALL);
            for (int i = 0; i < 10; i++) {
                qp[0].postSend(new SendWorkRequest().wrId(i).opcode(WrOpcode.RDMA_WRITE).flags(SendFlags.SIGNALED)
                        .addSge(src, 0, 8).remote(remote.address(), remote.rkey()));
            }
            r.run(10 * MS);
            assertEquals(6, small.overruns());
            org.urdma.verbs.AsyncEvent e = new org.urdma.verbs.AsyncEvent();
            boolean cqErr = false;
            while (r.fabric.a.pollAsyncEvent(e)) cqErr |= e.type == org.urdma.verbs.AsyncEventType.CQ_ERR && e.element == small;
            assertTrue(cqErr);
        }
    }

    @Test
    void foreignPartitionKeyIsDroppedAndCounted() {
        try (Rig r = new Rig()) {
            QueuePair[] qp = r.rc();
            Frames frames = new Frames(r.fabric);
            Packet p = frames.packet();
            p.opcode = Opcode.RC_SEND_ONLY;
            p.destQp = qp[1].qpNum();
            p.pkey = 0x8001;
            p.psn = 100;
            assertTrue(frames.send(p, r.sim.now()));
            r.run(MS);
            assertEquals(1, r.fabric.b.stats().get(Counter.DROP_BAD_PKEY));
            assertTrue(r.pendingB().isEmpty());
        }
    }
}
