package org.urdma.transport.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.urdma.transport.driver.MemoryFabric;
import org.urdma.verbs.AccessFlags;
import org.urdma.verbs.MemoryRegion;
import org.urdma.verbs.MemoryWindow;
import org.urdma.verbs.MwBind;
import org.urdma.verbs.MwType;
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

/**
 * Memory windows as rxe has them: bound by ibv_bind_mw (type 1) or a BIND_MW request (type 2), accessed through their
 * rkey within their range and rights, invalidated by LOCAL_INV or SEND_WITH_INV, after which an access is NAK'd with a
 * remote access error and touches nothing.
 */
class MemoryWindowTest {
    static final long MS = 1_000_000L;
    static final int LEN = 8192;
    static final int RW = AccessFlags.REMOTE_READ | AccessFlags.REMOTE_WRITE;

    /** Side B's region (8 KiB with MW_BIND, filled with 0x5A) and side A's source (filled with 1). */
    record Regions(MemoryRegion exposed, MemoryRegion src) {
        boolean untouched() {
            return exposed.segment().mismatch(MemorySegment.ofArray(new byte[LEN]).fill((byte) 0x5A)) == -1;
        }
    }

    static Regions regions(Rig r) {
        MemoryRegion exposed = r.mrB(LEN, AccessFlags.LOCAL_WRITE | AccessFlags.MW_BIND);
        exposed.segment().fill((byte) 0x5A);
        MemoryRegion src = r.mrA(LEN, AccessFlags.LOCAL_WRITE);
        src.segment().fill((byte) 1);
        return new Regions(exposed, src);
    }

    private static WorkCompletion write(Rig r, QueuePair qp, MemoryRegion src, long va, int rkey, int len) {
        qp.postSend(new SendWorkRequest().wrId(7).opcode(WrOpcode.RDMA_WRITE).flags(SendFlags.SIGNALED).addSge(src, 0, len).remote(va, rkey));
        return r.awaitA(1, 100 * MS).get(0);
    }

    /** Binds type 2 window {@code mw} over [off, off+len) of {@code mr} through {@code qp} (side B) and waits for its completion. */
    private static int bindType2(Rig r, QueuePair qp, MemoryWindow mw, MemoryRegion mr, long off, long len, int rights) {
        int rkey = MemoryWindow.incRkey(mw.rkey());
        qp.postSend(new SendWorkRequest().wrId(9).opcode(WrOpcode.BIND_MW).flags(SendFlags.SIGNALED)
                .bindMw(mw, rkey, new MwBind().mr(mr).addr(mr.address() + off).length(len).access(rights)));
        WorkCompletion wc = r.awaitB(1, 10 * MS).get(0);
        assertEquals(WcStatus.SUCCESS, wc.status, wc.toString());
        assertEquals(WcOpcode.BIND_MW, wc.opcode);
        return rkey;
    }

    /** Binds type 1 window {@code mw} over all of {@code mr} through {@code qp} (side B) and waits for its completion. */
    private static int bindType1(Rig r, QueuePair qp, MemoryWindow mw, MemoryRegion mr) {
        int rkey = qp.bindMw(mw, new MwBind().region(mr, RW).flags(SendFlags.SIGNALED));
        assertEquals(WcStatus.SUCCESS, r.awaitB(1, 10 * MS).get(0).status);
        return rkey;
    }

    /** A rig whose A→B link loses as {@code aToB} says, recovering by go-back-N. */
    private static Rig goBackN(org.urdma.transport.impair.ImpairmentConfig aToB) {
        return new Rig(aToB, org.urdma.transport.impair.ImpairmentConfig.none(), org.urdma.transport.recovery.LossRecovery.goBackN(),
                org.urdma.transport.link.MemoryLink.Config.defaults());
    }

    /** The WRITE of {@code pair[0]} got the NAK: both QPs in ERR (rxe's class C error at the responder), nothing placed. */
    private static void assertNaked(WorkCompletion wc, QueuePair[] pair, Regions g) {
        assertEquals(WcStatus.REM_ACCESS_ERR, wc.status, wc.toString());
        assertEquals(QpState.ERR, pair[0].state(), "a remote access error ends the requester's QP");
        assertEquals(QpState.ERR, pair[1].state(), "and the responder's");
        assertTrue(g.untouched(), "the NAK'd WRITE placed nothing");
    }

    @Test
    void aWriteAndAReadThroughABoundType1WindowReachTheRegion() {
        try (Rig r = new Rig()) {
            QueuePair[] qp = r.rc();
            Regions g = regions(r);
            MemoryWindow mw = r.pdB.allocMw(MwType.TYPE_1);
            int before = mw.rkey();
            int rkey = qp[1].bindMw(mw, new MwBind().mr(g.exposed()).addr(g.exposed().address() + 4096).length(4096).access(RW)
                    .wrId(3).flags(SendFlags.SIGNALED));
            assertEquals(MemoryWindow.incRkey(before), rkey);
            assertEquals(rkey, mw.rkey());
            assertEquals(before >>> 8, rkey >>> 8, "the index stays, the key moves");
            WorkCompletion bound = r.awaitB(1, 10 * MS).get(0);
            assertEquals(WcStatus.SUCCESS, bound.status);
            assertEquals(WcOpcode.BIND_MW, bound.opcode);
            assertEquals(3, bound.wrId);
            assertEquals(WcStatus.SUCCESS, write(r, qp[0], g.src(), g.exposed().address() + 4096, rkey, 4096).status);
            MemorySegment seg = g.exposed().segment();
            assertEquals(1, seg.get(ValueLayout.JAVA_BYTE, 4096));
            assertEquals(1, seg.get(ValueLayout.JAVA_BYTE, LEN - 1));
            assertEquals(0x5A, seg.get(ValueLayout.JAVA_BYTE, 4095), "bytes before the window are not written");
            MemoryRegion sink = r.mrA(4096, AccessFlags.LOCAL_WRITE);
            qp[0].postSend(new SendWorkRequest().wrId(8).opcode(WrOpcode.RDMA_READ).flags(SendFlags.SIGNALED)
                    .addSge(sink, 0, 4096).remote(g.exposed().address() + 4096, rkey));
            assertEquals(WcStatus.SUCCESS, r.awaitA(1, 10 * MS).get(0).status);
            assertEquals(-1, sink.segment().mismatch(seg.asSlice(4096, 4096)));
        }
    }

    @Test
    void aWriteThroughAnUnboundType1WindowIsNakedAndTouchesNothing() {
        try (Rig r = new Rig()) {
            QueuePair[] qp = r.rc();
            Regions g = regions(r);
            MemoryWindow mw = r.pdB.allocMw(MwType.TYPE_1);
            assertNaked(write(r, qp[0], g.src(), g.exposed().address(), mw.rkey(), 64), qp, g);
        }
    }

    @Test
    void aWriteThroughAType1WindowAfterItsUnbindIsNaked() {
        try (Rig r = new Rig()) {
            QueuePair[] qp = r.rc();
            Regions g = regions(r);
            MemoryWindow mw = r.pdB.allocMw(MwType.TYPE_1);
            int rkey = bindType1(r, qp[1], mw, g.exposed());
            assertEquals(1, ((org.urdma.transport.memory.RegisteredMemory) g.exposed()).boundWindows());
            int unbound = qp[1].bindMw(mw, new MwBind().flags(SendFlags.SIGNALED)); // no region, length 0: unbind
            assertEquals(WcStatus.SUCCESS, r.awaitB(1, 10 * MS).get(0).status);
            assertEquals(0, ((org.urdma.transport.memory.RegisteredMemory) g.exposed()).boundWindows());
            assertNaked(write(r, qp[0], g.src(), g.exposed().address(), unbound, 64), qp, g);
            assertNotEquals(rkey, unbound);
        }
    }

    @Test
    void aWriteThroughAWindowAfterLocalInvalidateIsNakedAndTouchesNothing() {
        try (Rig r = new Rig()) {
            QueuePair[] qp = r.rc();
            Regions g = regions(r);
            MemoryWindow mw = r.pdB.allocMw(MwType.TYPE_2);
            int rkey = bindType2(r, qp[1], mw, g.exposed(), 0, LEN, RW);
            qp[1].postSend(new SendWorkRequest().wrId(10).opcode(WrOpcode.LOCAL_INV).invalidateRkey(rkey).flags(SendFlags.SIGNALED));
            WorkCompletion inv = r.awaitB(1, 10 * MS).get(0);
            assertEquals(WcStatus.SUCCESS, inv.status, inv.toString());
            assertEquals(WcOpcode.LOCAL_INV, inv.opcode);
            assertTrue(g.exposed().isValid(), "the region beneath stays registered");
            assertNaked(write(r, qp[0], g.src(), g.exposed().address(), rkey, 64), qp, g);
        }
    }

    @Test
    void sendWithInvalidateFreesAType2WindowAndTheNextWriteIsNaked() {
        try (Rig r = new Rig()) {
            QueuePair[] qp = r.rc();
            Regions g = regions(r);
            MemoryWindow mw = r.pdB.allocMw(MwType.TYPE_2);
            int rkey = bindType2(r, qp[1], mw, g.exposed(), 0, LEN, RW);
            MemoryRegion dst = r.mrB(64, AccessFlags.LOCAL_WRITE);
            qp[1].postRecv(new ReceiveWorkRequest().wrId(11).addSge(dst, 0, 64));
            qp[0].postSend(new SendWorkRequest().wrId(12).opcode(WrOpcode.SEND_WITH_INV).invalidateRkey(rkey)
                    .flags(SendFlags.SIGNALED).addSge(g.src(), 0, 8));
            assertEquals(WcStatus.SUCCESS, r.awaitA(1, 10 * MS).get(0).status);
            WorkCompletion recv = r.awaitB(1, 10 * MS).get(0);
            assertEquals(WcStatus.SUCCESS, recv.status);
            assertTrue(recv.hasInvalidate());
            assertEquals(rkey, recv.invalidatedRkey);
            // a free type 2 window binds again, with a new key; the old one stays dead
            int again = bindType2(r, qp[1], mw, g.exposed(), 0, LEN, RW);
            assertEquals(MemoryWindow.incRkey(rkey), again);
            assertNaked(write(r, qp[0], g.src(), g.exposed().address(), rkey, 64), qp, g);
        }
    }

    @Test
    void sendWithInvalidateOfAType1WindowFailsAtTheReceiverAndKeepsTheWindow() {
        try (Rig r = new Rig()) {
            QueuePair[] qp = r.rc();
            Regions g = regions(r);
            MemoryWindow mw = r.pdB.allocMw(MwType.TYPE_1);
            int rkey = bindType1(r, qp[1], mw, g.exposed());
            MemoryRegion dst = r.mrB(64, AccessFlags.LOCAL_WRITE);
            qp[1].postRecv(new ReceiveWorkRequest().wrId(11).addSge(dst, 0, 64));
            qp[0].postSend(new SendWorkRequest().wrId(12).opcode(WrOpcode.SEND_WITH_INV).invalidateRkey(rkey)
                    .flags(SendFlags.SIGNALED).addSge(g.src(), 0, 8));
            assertEquals(WcStatus.REM_INV_REQ_ERR, r.awaitA(1, 10 * MS).get(0).status);
            assertEquals(WcStatus.REM_INV_REQ_ERR, r.awaitB(1, 10 * MS).get(0).status);
            assertEquals(org.urdma.transport.memory.SoftMw.State.VALID, ((org.urdma.transport.memory.SoftMw) mw).state(), "type 1 windows are never invalidated");
        }
    }

    @Test
    void aLocalInvalidateOfAType1WindowFails() {
        try (Rig r = new Rig()) {
            QueuePair[] qp = r.rc();
            Regions g = regions(r);
            MemoryWindow mw = r.pdB.allocMw(MwType.TYPE_1);
            int rkey = qp[1].bindMw(mw, new MwBind().region(g.exposed(), RW));
            qp[1].postSend(new SendWorkRequest().wrId(10).opcode(WrOpcode.LOCAL_INV).invalidateRkey(rkey).flags(SendFlags.SIGNALED));
            WorkCompletion wc = r.awaitB(1, 10 * MS).get(0);
            assertEquals(10, wc.wrId, "the unsignaled bind reports nothing");
            assertNotEquals(WcStatus.SUCCESS, wc.status);
            assertEquals(QpState.ERR, qp[1].state());
        }
    }

    /** Each WRITE lies inside the region but not inside what the window grants: past its end, before it, or with only READ. */
    @ParameterizedTest(name = "window +{0} len {1} rights {2}, write +{3} len {4}")
    @CsvSource({"1024, 2048, 6, 2048, 2048", "1024, 2048, 6, 1000, 64", "0, 8192, 4, 0, 64"})
    void aWriteTheWindowDoesNotCoverIsNakedAndTouchesNothing(long off, long len, int rights, long at, int bytes) {
        try (Rig r = new Rig()) {
            QueuePair[] qp = r.rc();
            Regions g = regions(r);
            MemoryWindow mw = r.pdB.allocMw(MwType.TYPE_2);
            int rkey = bindType2(r, qp[1], mw, g.exposed(), off, len, rights);
            assertNaked(write(r, qp[0], g.src(), g.exposed().address() + at, rkey, bytes), qp, g);
        }
    }

    @Test
    void aType2WindowRefusesAQpOtherThanTheOneThatBoundIt() {
        try (Rig r = new Rig()) {
            QueuePair[] bound = r.rc();
            QueuePair[] other = r.fabric.connect(r.pdA, MemoryFabric.init(QpType.RC, r.cqA, 64), r.pdB,
                    MemoryFabric.init(QpType.RC, r.cqB, 64), MemoryFabric.Connection.defaults(), 5000, 6000);
            Regions g = regions(r);
            MemoryWindow mw = r.pdB.allocMw(MwType.TYPE_2);
            int rkey = bindType2(r, bound[1], mw, g.exposed(), 0, LEN, RW);
            assertNaked(write(r, other[0], g.src(), g.exposed().address(), rkey, 64), other, g);
            assertEquals(WcStatus.SUCCESS, write(r, bound[0], g.src(), g.exposed().address(), rkey, 64).status,
                    "the QP that bound it still writes");
        }
    }

    @Test
    void aType2WindowBoundAgainWithoutInvalidateFailsWithMwBindErr() {
        try (Rig r = new Rig()) {
            QueuePair[] qp = r.rc();
            Regions g = regions(r);
            MemoryWindow mw = r.pdB.allocMw(MwType.TYPE_2);
            int rkey = bindType2(r, qp[1], mw, g.exposed(), 0, LEN, RW);
            qp[1].postSend(new SendWorkRequest().wrId(13).opcode(WrOpcode.BIND_MW).flags(SendFlags.SIGNALED)
                    .bindMw(mw, MemoryWindow.incRkey(rkey), new MwBind().region(g.exposed(), RW)));
            WorkCompletion wc = r.awaitB(1, 10 * MS).get(0);
            assertEquals(WcStatus.MW_BIND_ERR, wc.status, "a bound type 2 window is not free");
            assertEquals(QpState.ERR, qp[1].state());
        }
    }

    @Test
    void aBindOfADeallocatedWindowCompletesWithMwBindErr() {
        try (Rig r = new Rig()) {
            QueuePair[] qp = r.rc();
            Regions g = regions(r);
            MemoryWindow mw = r.pdB.allocMw(MwType.TYPE_1);
            mw.dealloc();
            qp[1].bindMw(mw, new MwBind().region(g.exposed(), RW).wrId(14));
            WorkCompletion wc = r.awaitB(1, 10 * MS).get(0);
            assertEquals(14, wc.wrId);
            assertEquals(WcStatus.MW_BIND_ERR, wc.status, wc.toString());
            assertEquals(0, ((org.urdma.transport.memory.RegisteredMemory) g.exposed()).boundWindows());
        }
    }

    @Test
    void aUcPeerWritesThroughAType2WindowAndAfterLocalInvalidateItsWriteIsDropped() {
        try (Rig r = new Rig()) {
            QueuePair[] qp = r.connect(QpType.UC, MemoryFabric.Connection.defaults());
            Regions g = regions(r);
            MemoryWindow mw = r.pdB.allocMw(MwType.TYPE_2);
            int rkey = bindType2(r, qp[1], mw, g.exposed(), 0, LEN, RW);
            assertEquals(WcStatus.SUCCESS, write(r, qp[0], g.src(), g.exposed().address(), rkey, 64).status);
            r.run(MS); // UC completes at the sender once sent
            assertEquals(1, g.exposed().segment().get(ValueLayout.JAVA_BYTE, 63));
            g.exposed().segment().fill((byte) 0x5A);
            qp[1].postSend(new SendWorkRequest().wrId(10).opcode(WrOpcode.LOCAL_INV).invalidateRkey(rkey).flags(SendFlags.SIGNALED));
            assertEquals(WcStatus.SUCCESS, r.awaitB(1, 10 * MS).get(0).status);
            assertEquals(WcStatus.SUCCESS, write(r, qp[0], g.src(), g.exposed().address(), rkey, 64).status, "UC: the sender learns nothing");
            r.run(MS);
            assertTrue(g.untouched(), "the receiver placed nothing through the freed window");
        }
    }

    @Test
    void aBindCompletesInOrderBehindEarlierWork() {
        try (Rig r = new Rig()) {
            QueuePair[] qp = r.rc();
            Regions g = regions(r);
            MemoryRegion remote = r.mrA(LEN, AccessFlags.LOCAL_WRITE | AccessFlags.REMOTE_WRITE);
            MemoryRegion local = r.mrB(LEN, AccessFlags.LOCAL_WRITE);
            MemoryWindow mw = r.pdB.allocMw(MwType.TYPE_2);
            qp[1].postSend(new SendWorkRequest().wrId(1).opcode(WrOpcode.RDMA_WRITE).flags(SendFlags.SIGNALED)
                    .addSge(local, 0, LEN).remote(remote.address(), remote.rkey()));
            qp[1].postSend(new SendWorkRequest().wrId(2).opcode(WrOpcode.BIND_MW).flags(SendFlags.SIGNALED)
                    .bindMw(mw, MemoryWindow.incRkey(mw.rkey()), new MwBind().region(g.exposed(), RW)));
            List<WorkCompletion> wcs = r.awaitB(2, 10 * MS);
            assertEquals(1, wcs.get(0).wrId);
            assertEquals(WcOpcode.RDMA_WRITE, wcs.get(0).opcode);
            assertEquals(2, wcs.get(1).wrId);
            assertEquals(WcOpcode.BIND_MW, wcs.get(1).opcode);
            assertEquals(WcStatus.SUCCESS, wcs.get(1).status);
        }
    }

    @Test
    void goBackNResendsAcrossBindsAndLocalInvalidatesSendNothingForThem() {
        try (Rig r = goBackN(org.urdma.transport.impair.ImpairmentConfig.random(0.05, 0, 0, 11))) {
            QueuePair[] qp = r.connect(QpType.RC, MemoryFabric.Connection.defaults().withMtu(org.urdma.verbs.PathMtu.MTU_1024));
            MemoryRegion src = r.mrA(LEN, AccessFlags.LOCAL_WRITE | AccessFlags.MW_BIND);
            for (int i = 0; i < LEN; i++) src.segment().set(ValueLayout.JAVA_BYTE, i, (byte) (i * 7));
            MemoryRegion dst = r.mrB(LEN * 8, AccessFlags.LOCAL_WRITE | AccessFlags.REMOTE_WRITE);
            MemoryWindow mw = r.pdA.allocMw(MwType.TYPE_2);
            int rkey = mw.rkey();
            for (int i = 0; i < 8; i++) {
                qp[0].postSend(new SendWorkRequest().wrId(10 * i).opcode(WrOpcode.RDMA_WRITE).flags(SendFlags.SIGNALED)
                        .addSge(src, 0, LEN).remote(dst.address() + (long) i * LEN, dst.rkey()));
                rkey = MemoryWindow.incRkey(rkey);
                qp[0].postSend(new SendWorkRequest().wrId(10 * i + 1).opcode(WrOpcode.BIND_MW).flags(SendFlags.SIGNALED)
                        .bindMw(mw, rkey, new MwBind().region(src, AccessFlags.REMOTE_READ)));
                qp[0].postSend(new SendWorkRequest().wrId(10 * i + 2).opcode(WrOpcode.LOCAL_INV).invalidateRkey(rkey).flags(SendFlags.SIGNALED));
            }
            List<WorkCompletion> wcs = r.awaitA(24, 2000 * MS);
            for (int i = 0; i < 24; i++) {
                assertEquals(WcStatus.SUCCESS, wcs.get(i).status, wcs.get(i).toString());
                assertEquals(10 * (i / 3) + i % 3, wcs.get(i).wrId);
            }
            for (int i = 0; i < 8; i++) assertEquals(-1, dst.segment().asSlice((long) i * LEN, LEN).mismatch(src.segment()));
            r.run(10 * MS);
            assertTrue(r.pendingB().isEmpty(), "the responder saw no request it could not place: " + r.pendingB());
            assertEquals(QpState.RTS, qp[1].state());
        }
    }

    /**
     * Every fifth frame A→B is dropped, so a resend rewinds into a WRITE whose local WQEs behind it already ran: the
     * walk passes them without sending (a packet for one would be a SEND the responder has no receive for) or running
     * them again (a second BIND of the still-bound window would fail).
     */
    @Test
    void aResendIntoAnEarlierWriteWalksPastLocalWorkItAlreadyRan() {
        try (Rig r = goBackN(org.urdma.transport.impair.ImpairmentConfig.dropEvery(5))) {
            QueuePair[] qp = r.connect(QpType.RC, MemoryFabric.Connection.defaults().withMtu(org.urdma.verbs.PathMtu.MTU_1024));
            MemoryRegion src = r.mrA(LEN, AccessFlags.LOCAL_WRITE | AccessFlags.MW_BIND);
            for (int i = 0; i < LEN; i++) src.segment().set(ValueLayout.JAVA_BYTE, i, (byte) (i * 3));
            MemoryRegion dst = r.mrB(LEN * 4, AccessFlags.LOCAL_WRITE | AccessFlags.REMOTE_WRITE);
            MemoryWindow[] mws = new MemoryWindow[4];
            for (int i = 0; i < 4; i++) {
                mws[i] = r.pdA.allocMw(MwType.TYPE_2);
                qp[0].postSend(new SendWorkRequest().wrId(10 * i).opcode(WrOpcode.RDMA_WRITE).flags(SendFlags.SIGNALED)
                        .addSge(src, 0, LEN).remote(dst.address() + (long) i * LEN, dst.rkey()));
                qp[0].postSend(new SendWorkRequest().wrId(10 * i + 1).opcode(WrOpcode.BIND_MW).flags(SendFlags.SIGNALED)
                        .bindMw(mws[i], MemoryWindow.incRkey(mws[i].rkey()), new MwBind().region(src, AccessFlags.REMOTE_READ)));
            }
            List<WorkCompletion> wcs = r.awaitA(8, 2000 * MS);
            for (int i = 0; i < 8; i++) {
                assertEquals(WcStatus.SUCCESS, wcs.get(i).status, wcs.get(i).toString());
                assertEquals(10 * (i / 2) + i % 2, wcs.get(i).wrId);
            }
            for (int i = 0; i < 4; i++) {
                assertEquals(-1, dst.segment().asSlice((long) i * LEN, LEN).mismatch(src.segment()));
                assertEquals(org.urdma.transport.memory.SoftMw.State.VALID, ((org.urdma.transport.memory.SoftMw) mws[i]).state());
            }
            r.run(10 * MS);
            assertTrue(r.pendingB().isEmpty(), "the responder saw no request it could not place: " + r.pendingB());
            assertEquals(QpState.RTS, qp[1].state());
        }
    }

    /** A bind that fails when reached stops new work, not the resend of the lossy WRITE before it, which completes first. */
    @Test
    void aFailedBindBehindALossyWriteLetsTheWriteCompleteFirst() {
        try (Rig r = goBackN(org.urdma.transport.impair.ImpairmentConfig.dropEvery(5))) {
            QueuePair[] qp = r.connect(QpType.RC, MemoryFabric.Connection.defaults().withMtu(org.urdma.verbs.PathMtu.MTU_1024));
            MemoryRegion src = r.mrA(LEN, AccessFlags.LOCAL_WRITE | AccessFlags.MW_BIND);
            src.segment().fill((byte) 4);
            MemoryRegion dst = r.mrB(LEN, AccessFlags.LOCAL_WRITE | AccessFlags.REMOTE_WRITE);
            MemoryWindow mw = r.pdA.allocMw(MwType.TYPE_2);
            int rkey = MemoryWindow.incRkey(mw.rkey());
            qp[0].postSend(new SendWorkRequest().wrId(1).opcode(WrOpcode.BIND_MW).flags(SendFlags.SIGNALED)
                    .bindMw(mw, rkey, new MwBind().region(src, AccessFlags.REMOTE_READ)));
            qp[0].postSend(new SendWorkRequest().wrId(2).opcode(WrOpcode.RDMA_WRITE).flags(SendFlags.SIGNALED)
                    .addSge(src, 0, LEN).remote(dst.address(), dst.rkey()));
            qp[0].postSend(new SendWorkRequest().wrId(3).opcode(WrOpcode.BIND_MW).flags(SendFlags.SIGNALED)
                    .bindMw(mw, MemoryWindow.incRkey(rkey), new MwBind().region(src, AccessFlags.REMOTE_READ)));
            List<WorkCompletion> wcs = r.awaitA(3, 2000 * MS);
            assertEquals(WcStatus.SUCCESS, wcs.get(0).status, wcs.get(0).toString());
            assertEquals(2, wcs.get(1).wrId);
            assertEquals(WcStatus.SUCCESS, wcs.get(1).status, "the WRITE's lost packet was resent: " + wcs.get(1));
            assertEquals(-1, dst.segment().mismatch(src.segment()));
            assertEquals(3, wcs.get(2).wrId);
            assertEquals(WcStatus.MW_BIND_ERR, wcs.get(2).status, "a bound type 2 window is not free");
            assertEquals(QpState.ERR, qp[0].state());
        }
    }

    @Test
    void aRegionWithABoundWindowIsNeitherDeregisteredNorInvalidated() {
        try (Rig r = new Rig()) {
            QueuePair[] qp = r.rc();
            Regions g = regions(r);
            MemoryWindow mw = r.pdB.allocMw(MwType.TYPE_2);
            int rkey = bindType2(r, qp[1], mw, g.exposed(), 0, LEN, RW);
            IllegalStateException e = assertThrows(IllegalStateException.class, g.exposed()::deregister);
            assertTrue(e.getMessage().startsWith("deregister: 1 memory window(s) bound"), e.getMessage());
            assertTrue(g.exposed().isValid());
            assertFalse(r.fabric.b.keys().invalidateRkey(g.exposed().rkey(), r.pdB), "rxe: an MR with windows bound is not invalidated");
            mw.dealloc();
            assertNaked(write(r, qp[0], g.src(), g.exposed().address(), rkey, 64), qp, g);
            g.exposed().deregister(); // nothing bound any more
            assertFalse(g.exposed().isValid());
        }
    }

    @Test
    void badBindsAreRefusedNamingTheField() {
        try (Rig r = new Rig()) {
            QueuePair[] qp = r.rc();
            MemoryRegion noBind = r.mrB(LEN, AccessFlags.LOCAL_WRITE);
            MemoryRegion readOnly = r.mrB(LEN, AccessFlags.MW_BIND);
            MemoryRegion ok = r.mrB(LEN, AccessFlags.LOCAL_WRITE | AccessFlags.MW_BIND);
            MemoryRegion otherPd = r.fabric.b.allocPd().registerMemory(r.segment(LEN), AccessFlags.LOCAL_WRITE | AccessFlags.MW_BIND);
            MemoryWindow t1 = r.pdB.allocMw(MwType.TYPE_1);
            MemoryWindow t2 = r.pdB.allocMw(MwType.TYPE_2);
            assertRefused("bindMw: mr lacks MW_BIND access", () -> qp[1].bindMw(t1, new MwBind().region(noBind, RW)));
            assertRefused("bindMw: access REMOTE_WRITE or REMOTE_ATOMIC needs LOCAL_WRITE on mr",
                    () -> qp[1].bindMw(t1, new MwBind().region(readOnly, RW)));
            assertRefused("bindMw: range 0x", () -> qp[1].bindMw(t1, new MwBind().mr(ok).addr(ok.address() + 1).length(LEN).access(RW)));
            assertRefused("bindMw: mr is in another protection domain", () -> qp[1].bindMw(t1, new MwBind().region(otherPd, RW)));
            assertRefused("bindMw: mw is TYPE_2", () -> qp[1].bindMw(t2, new MwBind().region(ok, RW)));
            assertRefused("bindMw: access ZERO_BASED", () -> qp[1].bindMw(t1, new MwBind().region(ok, RW | AccessFlags.ZERO_BASED)));
            assertRefused("bindMw: mr must be set", () -> qp[1].bindMw(t1, new MwBind().length(64)));
            assertRefused("bind_mw: rkey 0x", () -> qp[1].postSend(new SendWorkRequest().opcode(WrOpcode.BIND_MW)
                    .bindMw(t2, t2.rkey() ^ 0x100, new MwBind().region(ok, RW))));
            assertRefused("bind_mw: length must be > 0 for a type 2 window", () -> qp[1].postSend(new SendWorkRequest()
                    .opcode(WrOpcode.BIND_MW).bindMw(t2, MemoryWindow.incRkey(t2.rkey()), new MwBind().mr(ok).addr(ok.address()))));
            assertRefused("access: unknown bits", () -> r.pdB.registerMemory(r.segment(64), 1 << 6));
            r.run(MS);
            assertTrue(r.pendingB().isEmpty(), "nothing refused reached the queue");
            assertEquals(QpState.RTS, qp[1].state());
        }
    }

    private static void assertRefused(String prefix, Runnable call) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, call::run);
        assertTrue(e.getMessage().startsWith(prefix), e.getMessage());
    }

    @Test
    void writesThroughAWindowAllocateNothingOnceWarm() {
        try (Rig r = new Rig()) {
            QueuePair[] qp = r.rc();
            Regions g = regions(r);
            MemoryWindow mw = r.pdB.allocMw(MwType.TYPE_2);
            int rkey = bindType2(r, qp[1], mw, g.exposed(), 0, LEN, RW);
            SendWorkRequest wr = new SendWorkRequest().wrId(1).opcode(WrOpcode.RDMA_WRITE).flags(SendFlags.SIGNALED)
                    .addSge(g.src(), 0, 2048).remote(g.exposed().address() + 4096, rkey);
            WorkCompletion[] wcs = new WorkCompletion[16];
            for (int i = 0; i < wcs.length; i++) wcs[i] = new WorkCompletion();
            com.sun.management.ThreadMXBean mx = (com.sun.management.ThreadMXBean) java.lang.management.ManagementFactory.getThreadMXBean();
            long tid = Thread.currentThread().threadId();
            long best = Long.MAX_VALUE;
            int done = 0;
            for (int round = 0; round < 20; round++) {
                long before = mx.getThreadAllocatedBytes(tid);
                for (int i = 0; i < 100; i++) {
                    qp[0].postSend(wr);
                    r.sim.runFor(20_000);
                    int n = r.cqA.poll(wcs);
                    for (int k = 0; k < n; k++) {
                        if (wcs[k].status != WcStatus.SUCCESS) throw new AssertionError(wcs[k].toString());
                    }
                    done += n;
                }
                best = Math.min(best, mx.getThreadAllocatedBytes(tid) - before);
            }
            r.sim.runFor(MS);
            done += r.cqA.poll(wcs);
            assertEquals(2000, done, "every WRITE through the window completed");
            assertTrue(best < 1024, best + " bytes allocated for 100 WRITEs through a window");
        }
    }

    @Test
    void devicesReportWindowsAmongTheirCapabilities() {
        try (Rig r = new Rig()) {
            var a = r.fabric.a.attributes();
            assertTrue(a.maxMw() > 0);
            assertEquals(List.of("RC_RNR_NAK_GEN", "MEM_WINDOW", "MEM_WINDOW_TYPE_2B"),
                    org.urdma.verbs.DeviceAttributes.capFlagNames(a.deviceCapFlags()));
        }
    }
}
