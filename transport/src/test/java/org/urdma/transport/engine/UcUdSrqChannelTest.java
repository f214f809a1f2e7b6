package org.urdma.transport.engine;

import static org.junit.jupiter.api.Assertions.*;

import java.lang.foreign.ValueLayout;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.urdma.transport.driver.MemoryFabric;
import org.urdma.transport.impair.ImpairmentConfig;
import org.urdma.transport.link.MemoryLink;
import org.urdma.transport.recovery.LossRecovery;
import org.urdma.verbs.AccessFlags;
import org.urdma.verbs.AddressHandle;
import org.urdma.verbs.AddressHandleAttributes;
import org.urdma.verbs.AsyncEvent;
import org.urdma.verbs.AsyncEventType;
import org.urdma.verbs.CompletionChannel;
import org.urdma.verbs.CompletionQueue;
import org.urdma.verbs.MemoryRegion;
import org.urdma.verbs.PathMtu;
import org.urdma.verbs.QpType;
import org.urdma.verbs.QueuePair;
import org.urdma.verbs.ReceiveWorkRequest;
import org.urdma.verbs.SendFlags;
import org.urdma.verbs.SendWorkRequest;
import org.urdma.verbs.SharedReceiveQueue;
import org.urdma.verbs.WcOpcode;
import org.urdma.verbs.WcStatus;
import org.urdma.verbs.WorkCompletion;
import org.urdma.verbs.WrOpcode;

class UcUdSrqChannelTest {
    static final long MS = 1_000_000L;

    @Test
    void ucDropsAMessageWithALostPacketWholeAndDeliversTheOthers() {
        // drop every 5th frame A->B: 3-packet messages lose one packet in some messages
        try (Rig r = new Rig(ImpairmentConfig.dropEvery(5), ImpairmentConfig.none(), LossRecovery.goBackN(), MemoryLink.Config.defaults())) {
            QueuePair[] qp = r.connect(QpType.UC, MemoryFabric.Connection.defaults().withMtu(PathMtu.MTU_1024));
            MemoryRegion src = r.mrA(3000, AccessFlags.LOCAL_WRITE);
            MemoryRegion dst = r.mrB(3000 * 10, AccessFlags.LOCAL_WRITE);
            for (int i = 0; i < 10; i++) {
                src.segment().fill((byte) (i + 1));
                qp[1].postRecv(new ReceiveWorkRequest().wrId(i).addSge(dst, 3000L * i, 3000));
            }
            for (int i = 0; i < 10; i++) {
                src.segment().set(ValueLayout.JAVA_BYTE, 0, (byte) i);
                qp[0].postSend(new SendWorkRequest().wrId(i).opcode(WrOpcode.SEND).flags(SendFlags.SIGNALED | SendFlags.INLINE)
                        .addSge(src, 0, 64));
            }
            // inline small ones above; now 3-packet messages
            for (int i = 0; i < 10; i++) {
                qp[0].postSend(new SendWorkRequest().wrId(100 + i).opcode(WrOpcode.SEND).flags(SendFlags.SIGNALED).addSge(src, 0, 3000));
            }
            List<WorkCompletion> sent = r.awaitA(20, 10 * MS);
            for (WorkCompletion w : sent) assertEquals(WcStatus.SUCCESS, w.status, "UC completes on send: " + w);
            r.run(MS);
            List<WorkCompletion> got = r.pendingB();
            assertTrue(got.size() < 20 && got.size() > 5, "some messages lost whole: " + got.size());
            for (WorkCompletion w : got) {
                assertEquals(WcStatus.SUCCESS, w.status);
                assertTrue(w.byteLen == 64 || w.byteLen == 3000, "never a partial message: " + w);
            }
            assertTrue(((SoftQp) qp[1]).responder.ucDiscarded() > 0);
        }
    }

    @Test
    void ucWriteWithImmediate() {
        try (Rig r = new Rig()) {
            QueuePair[] qp = r.connect(QpType.UC, MemoryFabric.Connection.defaults());
            MemoryRegion src = r.mrA(5000, AccessFlags.LOCAL_WRITE);
            MemoryRegion dst = r.mrB(5000, AccessFlags.LOCAL_WRITE | AccessFlags.REMOTE_WRITE);
            src.segment().fill((byte) 3);
            qp[1].postRecv(new ReceiveWorkRequest().wrId(1));
            qp[0].postSend(new SendWorkRequest().wrId(2).opcode(WrOpcode.RDMA_WRITE_WITH_IMM).immData(5).flags(SendFlags.SIGNALED)
                    .addSge(src, 0, 5000).remote(dst.address(), dst.rkey()));
            assertEquals(WcStatus.SUCCESS, r.awaitA(1, MS).get(0).status);
            WorkCompletion w = r.awaitB(1, MS).get(0);
            assertEquals(WcOpcode.RECV_RDMA_WITH_IMM, w.opcode);
            assertEquals(5, w.immData);
            assertEquals(-1, src.segment().mismatch(dst.segment()));
        }
    }

    private static QueuePair[] ud(Rig r) {
        return r.connect(QpType.UD, MemoryFabric.Connection.defaults());
    }

    @Test
    void udDeliversWithGrhSpaceAndSourceQp() {
        try (Rig r = new Rig()) {
            QueuePair[] qp = ud(r);
            MemoryRegion src = r.mrA(4096, AccessFlags.LOCAL_WRITE);
            MemoryRegion dst = r.mrB(4096 + 40, AccessFlags.LOCAL_WRITE);
            src.segment().fill((byte) 7);
            AddressHandle ah = r.pdA.createAh(new AddressHandleAttributes().dgid(r.fabric.b.gid(0)).dmac(r.fabric.b.mac()));
            qp[1].postRecv(new ReceiveWorkRequest().wrId(1).addSge(dst, 0, 4096 + 40));
            qp[0].postSend(new SendWorkRequest().wrId(2).opcode(WrOpcode.SEND_WITH_IMM).immData(11).flags(SendFlags.SIGNALED)
                    .addSge(src, 0, 4096).ud(ah, qp[1].qpNum(), 0x11111111));
            assertEquals(WcStatus.SUCCESS, r.awaitA(1, MS).get(0).status);
            WorkCompletion w = r.awaitB(1, MS).get(0);
            assertEquals(WcStatus.SUCCESS, w.status);
            assertEquals(40 + 4096, w.byteLen);
            assertEquals(qp[0].qpNum(), w.srcQp);
            assertTrue((w.flags & WorkCompletion.GRH) != 0);
            assertEquals(11, w.immData);
            assertEquals(0x60, dst.segment().get(ValueLayout.JAVA_BYTE, 0) & 0xF0, "GRH IPVer 6");
            assertEquals(0x1B, dst.segment().get(ValueLayout.JAVA_BYTE, 6), "GRH NxtHdr");
            assertEquals(-1, src.segment().mismatch(dst.segment().asSlice(40, 4096)));
        }
    }

    @Test
    void udWrongQkeyIsDroppedSilently() {
        try (Rig r = new Rig()) {
            QueuePair[] qp = ud(r);
            MemoryRegion src = r.mrA(64, AccessFlags.LOCAL_WRITE);
            MemoryRegion dst = r.mrB(200, AccessFlags.LOCAL_WRITE);
            AddressHandle ah = r.pdA.createAh(new AddressHandleAttributes().dgid(r.fabric.b.gid(0)));
            qp[1].postRecv(new ReceiveWorkRequest().wrId(1).addSge(dst, 0, 200));
            qp[0].postSend(new SendWorkRequest().wrId(2).opcode(WrOpcode.SEND).flags(SendFlags.SIGNALED)
                    .addSge(src, 0, 64).ud(ah, qp[1].qpNum(), 0x22222222));
            assertEquals(WcStatus.SUCCESS, r.awaitA(1, MS).get(0).status);
            r.run(MS);
            assertTrue(r.pendingB().isEmpty());
            assertEquals(1, ((SoftQp) qp[1]).counters().get(org.urdma.transport.counters.Counter.DROP_QKEY));
        }
    }

    @Test
    void udMessageLargerThanMtuIsALocalLengthError() {
        try (Rig r = new Rig()) {
            QueuePair[] qp = ud(r);
            MemoryRegion src = r.mrA(8192, AccessFlags.LOCAL_WRITE);
            AddressHandle ah = r.pdA.createAh(new AddressHandleAttributes().dgid(r.fabric.b.gid(0)));
            qp[0].postSend(new SendWorkRequest().wrId(2).opcode(WrOpcode.SEND).flags(SendFlags.SIGNALED)
                    .addSge(src, 0, 8192).ud(ah, qp[1].qpNum(), 0x11111111));
            assertEquals(WcStatus.LOC_LEN_ERR, r.awaitA(1, MS).get(0).status);
        }
    }

    @Test
    void srqFeedsTwoQpsAndRaisesTheLimitEventOnce() {
        try (Rig r = new Rig()) {
            SharedReceiveQueue srq = r.pdB.createSrq(64, 2, 0);
            MemoryRegion dst = r.mrB(64 * 100, AccessFlags.LOCAL_WRITE);
            for (int i = 0; i < 10; i++) srq.postRecv(new ReceiveWorkRequest().wrId(i).addSge(dst, 100L * i, 100));
            srq.armLimit(5);
            MemoryFabric.Connection c = MemoryFabric.Connection.defaults();
            QueuePair[] q1 = r.fabric.connect(r.pdA, MemoryFabric.init(QpType.RC, r.cqA, 16), r.pdB,
                    MemoryFabric.init(QpType.RC, r.cqB, 16).srq(srq), c, 1, 2);
            QueuePair[] q2 = r.fabric.connect(r.pdA, MemoryFabric.init(QpType.RC, r.cqA, 16), r.pdB,
                    MemoryFabric.init(QpType.RC, r.cqB, 16).srq(srq), c, 3, 4);
            assertThrows(IllegalArgumentException.class, () -> q1[1].postRecv(new ReceiveWorkRequest()));
            MemoryRegion src = r.mrA(100, AccessFlags.LOCAL_WRITE);
            for (int i = 0; i < 3; i++) {
                q1[0].postSend(new SendWorkRequest().wrId(i).opcode(WrOpcode.SEND).addSge(src, 0, 50));
                q2[0].postSend(new SendWorkRequest().wrId(10 + i).opcode(WrOpcode.SEND).addSge(src, 0, 50));
            }
            List<WorkCompletion> got = r.awaitB(6, 10 * MS);
            int onQ1 = 0, onQ2 = 0;
            for (WorkCompletion w : got) {
                assertEquals(WcStatus.SUCCESS, w.status);
                if (w.qpNum == q1[1].qpNum()) onQ1++;
                if (w.qpNum == q2[1].qpNum()) onQ2++;
            }
            assertEquals(3, onQ1);
            assertEquals(3, onQ2);
            assertEquals(4, srq.posted());
            AsyncEvent e = new AsyncEvent();
            int limitEvents = 0;
            while (r.fabric.b.pollAsyncEvent(e)) if (e.type == AsyncEventType.SRQ_LIMIT_REACHED && e.element == srq) limitEvents++;
            assertEquals(1, limitEvents, "raised once, then disarmed");
            assertEquals(0, srq.limit());
        }
    }

    @Test
    void completionChannelSignalsOnlySolicitedWhenAskedAndAnyOtherwise() {
        try (Rig r = new Rig()) {
            CompletionChannel ch = r.fabric.b.createCompletionChannel();
            CompletionQueue cq = r.fabric.b.createCq(64, ch);
            QueuePair[] qp = r.fabric.connect(r.pdA, MemoryFabric.init(QpType.RC, r.cqA, 16), r.pdB,
                    MemoryFabric.init(QpType.RC, cq, 16), MemoryFabric.Connection.defaults(), 1, 2);
            MemoryRegion src = r.mrA(64, AccessFlags.LOCAL_WRITE);
            MemoryRegion dst = r.mrB(64 * 4, AccessFlags.LOCAL_WRITE);
            for (int i = 0; i < 4; i++) qp[1].postRecv(new ReceiveWorkRequest().wrId(i).addSge(dst, 64L * i, 64));
            cq.requestNotify(true);
            qp[0].postSend(new SendWorkRequest().wrId(1).opcode(WrOpcode.SEND).addSge(src, 0, 8));
            r.run(MS);
            assertNull(ch.poll(), "unsolicited completion must not wake a solicited-only waiter");
            qp[0].postSend(new SendWorkRequest().wrId(2).opcode(WrOpcode.SEND).flags(SendFlags.SOLICITED).addSge(src, 0, 8));
            r.run(MS);
            assertSame(cq, ch.poll());
            assertNull(ch.poll(), "one event per arm");
            cq.requestNotify(false);
            qp[0].postSend(new SendWorkRequest().wrId(3).opcode(WrOpcode.SEND).addSge(src, 0, 8));
            r.run(MS);
            assertSame(cq, ch.poll());
            WorkCompletion[] wcs = {new WorkCompletion(), new WorkCompletion(), new WorkCompletion(), new WorkCompletion()};
            assertEquals(3, cq.poll(wcs));
        }
    }

    @Test
    void sendWithInvalidateRevokesTheRkeyAndLocalInvalidateToo() {
        try (Rig r = new Rig()) {
            QueuePair[] qp = r.rc();
            MemoryRegion src = r.mrA(64, AccessFlags.LOCAL_WRITE);
            MemoryRegion exposed = r.mrB(64, AccessFlags.ALL);
            MemoryRegion dst = r.mrB(64, AccessFlags.LOCAL_WRITE);
            qp[1].postRecv(new ReceiveWorkRequest().wrId(1).addSge(dst, 0, 64));
            qp[0].postSend(new SendWorkRequest().wrId(1).opcode(WrOpcode.SEND_WITH_INV).invalidateRkey(exposed.rkey())
                    .flags(SendFlags.SIGNALED).addSge(src, 0, 8));
            assertEquals(WcStatus.SUCCESS, r.awaitA(1, MS).get(0).status);
            WorkCompletion w = r.awaitB(1, MS).get(0);
            assertTrue(w.hasInvalidate());
            assertEquals(exposed.rkey(), w.invalidatedRkey);
            assertFalse(exposed.isValid());
            qp[0].postSend(new SendWorkRequest().wrId(2).opcode(WrOpcode.RDMA_WRITE).flags(SendFlags.SIGNALED)
                    .addSge(src, 0, 8).remote(exposed.address(), exposed.rkey()));
            assertEquals(WcStatus.REM_ACCESS_ERR, r.awaitA(1, MS).get(0).status);
        }
    }

    @Test
    void interleavedMultiPacketSendsOnTwoQpsNeverShareAnSrqBuffer() {
        try (Rig r = new Rig()) {
            int len = 100 * 1024; // 100 packets each: more than one engine pass, so the two QPs interleave
            SharedReceiveQueue srq = r.pdB.createSrq(16, 1, 0);
            MemoryRegion dst = r.mrB(2L * len, AccessFlags.LOCAL_WRITE);
            srq.postRecv(new ReceiveWorkRequest().wrId(0).addSge(dst, 0, len));
            srq.postRecv(new ReceiveWorkRequest().wrId(1).addSge(dst, len, len));
            MemoryFabric.Connection c = MemoryFabric.Connection.defaults();
            QueuePair[] q1 = r.fabric.connect(r.pdA, MemoryFabric.init(QpType.RC, r.cqA, 16), r.pdB,
                    MemoryFabric.init(QpType.RC, r.cqB, 16).srq(srq), c, 1, 2);
            QueuePair[] q2 = r.fabric.connect(r.pdA, MemoryFabric.init(QpType.RC, r.cqA, 16), r.pdB,
                    MemoryFabric.init(QpType.RC, r.cqB, 16).srq(srq), c, 3, 4);
            MemoryRegion s1 = r.mrA(len, AccessFlags.LOCAL_WRITE), s2 = r.mrA(len, AccessFlags.LOCAL_WRITE);
            s1.segment().fill((byte) 0x11);
            s2.segment().fill((byte) 0x22);
            q1[0].postSend(new SendWorkRequest().wrId(1).opcode(WrOpcode.SEND).addSge(s1, 0, len));
            q2[0].postSend(new SendWorkRequest().wrId(2).opcode(WrOpcode.SEND).addSge(s2, 0, len));
            List<WorkCompletion> got = r.awaitB(2, 10 * MS);
            for (WorkCompletion w : got) {
                assertEquals(WcStatus.SUCCESS, w.status);
                byte expect = w.qpNum == q1[1].qpNum() ? (byte) 0x11 : (byte) 0x22;
                var buf = dst.segment().asSlice(w.wrId * len, len);
                for (long i = 0; i < len; i += 997) assertEquals(expect, buf.get(ValueLayout.JAVA_BYTE, i), "buffer " + w.wrId);
                assertEquals(expect, buf.get(ValueLayout.JAVA_BYTE, len - 1));
            }
            assertNotEquals(got.get(0).qpNum, got.get(1).qpNum);
        }
    }
}
