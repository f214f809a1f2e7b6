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
import org.urdma.verbs.MemoryRegion;
import org.urdma.verbs.QpType;
import org.urdma.verbs.QueuePair;
import org.urdma.verbs.SendFlags;
import org.urdma.verbs.SendWorkRequest;
import org.urdma.verbs.WcStatus;
import org.urdma.verbs.WorkCompletion;
import org.urdma.verbs.WrOpcode;

class ResponderResourcesTest {
    static final long MS = 1_000_000L;

    @Test
    void everyRequestDuplicatedStillExecutesAtomicsOnceAndReadsCorrectly() {
        ImpairmentConfig allDup = ImpairmentConfig.none().duplicate(1.0, 0).seed(3);
        try (Rig r = new Rig(allDup, allDup, LossRecovery.goBackN(), MemoryLink.Config.defaults())) {
            QueuePair[] qp = r.rc();
            MemoryRegion local = r.mrA(1 << 16, AccessFlags.LOCAL_WRITE);
            MemoryRegion remote = r.mrB(1 << 16, AccessFlags.ALL);
            for (int i = 0; i < 1 << 16; i += 8) remote.segment().set(ValueLayout.JAVA_LONG, i, i);
            remote.segment().set(ValueLayout.JAVA_LONG, 0, 0);
            for (int i = 0; i < 20; i++) {
                qp[0].postSend(new SendWorkRequest().wrId(i).opcode(WrOpcode.ATOMIC_FETCH_AND_ADD).flags(SendFlags.SIGNALED)
                        .addSge(local, 8L * i, 8).remote(remote.address(), remote.rkey()).atomic(1, 0));
                qp[0].postSend(new SendWorkRequest().wrId(100 + i).opcode(WrOpcode.RDMA_READ).flags(SendFlags.SIGNALED)
                        .addSge(local, 4096 + 1024L * i, 3000).remote(remote.address() + 8192, remote.rkey()));
            }
            List<WorkCompletion> wcs = r.awaitA(40, 100 * MS);
            for (WorkCompletion w : wcs) assertEquals(WcStatus.SUCCESS, w.status, w.toString());
            assertEquals(20L, remote.segment().get(ValueLayout.JAVA_LONG, 0), "each atomic executed once despite duplicates");
            for (int i = 0; i < 20; i++) assertEquals(i, local.segment().get(ValueLayout.JAVA_LONG, 8L * i), "original values in order");
            assertEquals(-1, remote.segment().asSlice(8192, 3000 - 1024 * 0).mismatch(local.segment().asSlice(4096 + 1024L * 19, 3000)));
            assertTrue(((SoftQp) qp[1]).counters().get(org.urdma.transport.counters.Counter.DUPLICATE_REQUEST) >= 40, "duplicates were seen and replayed");
        }
    }

    @Test
    void maxRdAtomicOfOneStillCompletesManyReadsInOrder() {
        try (Rig r = new Rig()) {
            MemoryFabric.Connection c = new MemoryFabric.Connection(org.urdma.verbs.PathMtu.MTU_1024, 14, 7, 7, 12, 1, AccessFlags.ALL);
            QueuePair[] qp = r.connect(QpType.RC, c);
            MemoryRegion local = r.mrA(1 << 16, AccessFlags.LOCAL_WRITE);
            MemoryRegion remote = r.mrB(1 << 16, AccessFlags.ALL);
            remote.segment().fill((byte) 4);
            for (int i = 0; i < 16; i++) {
                qp[0].postSend(new SendWorkRequest().wrId(i).opcode(WrOpcode.RDMA_READ).flags(SendFlags.SIGNALED)
                        .addSge(local, 4096L * i, 4096).remote(remote.address() + 4096L * i, remote.rkey()));
            }
            List<WorkCompletion> wcs = r.awaitA(16, 100 * MS);
            for (int i = 0; i < 16; i++) {
                assertEquals(WcStatus.SUCCESS, wcs.get(i).status);
                assertEquals(i, wcs.get(i).wrId);
            }
            assertEquals(-1, local.segment().mismatch(remote.segment()));
        }
    }

    @Test
    void fencedWriteWaitsForThePriorRead() {
        try (Rig r = new Rig()) {
            QueuePair[] qp = r.rc();
            MemoryRegion local = r.mrA(8192, AccessFlags.LOCAL_WRITE);
            MemoryRegion remote = r.mrB(8192, AccessFlags.ALL);
            remote.segment().fill((byte) 1);
            local.segment().asSlice(4096, 4096).fill((byte) 2);
            // READ remote[0..4096) then a fenced WRITE over the same bytes: the READ must see the old bytes
            qp[0].postSend(new SendWorkRequest().wrId(1).opcode(WrOpcode.RDMA_READ).flags(SendFlags.SIGNALED)
                    .addSge(local, 0, 4096).remote(remote.address(), remote.rkey()));
            qp[0].postSend(new SendWorkRequest().wrId(2).opcode(WrOpcode.RDMA_WRITE).flags(SendFlags.SIGNALED | SendFlags.FENCE)
                    .addSge(local, 4096, 4096).remote(remote.address(), remote.rkey()));
            List<WorkCompletion> wcs = r.awaitA(2, 10 * MS);
            assertEquals(WcStatus.SUCCESS, wcs.get(0).status);
            assertEquals(WcStatus.SUCCESS, wcs.get(1).status);
            assertEquals(1, local.segment().get(ValueLayout.JAVA_BYTE, 100));
            assertEquals(2, remote.segment().get(ValueLayout.JAVA_BYTE, 100));
        }
    }

    @Test
    void deregisteredRegionRefusesRemoteAccess() {
        try (Rig r = new Rig()) {
            QueuePair[] qp = r.rc();
            MemoryRegion local = r.mrA(64, AccessFlags.LOCAL_WRITE);
            MemoryRegion remote = r.mrB(64, AccessFlags.ALL);
            remote.deregister();
            assertFalse(remote.isValid());
            qp[0].postSend(new SendWorkRequest().wrId(1).opcode(WrOpcode.RDMA_WRITE).flags(SendFlags.SIGNALED)
                    .addSge(local, 0, 8).remote(remote.address(), remote.rkey()));
            assertEquals(WcStatus.REM_ACCESS_ERR, r.awaitA(1, 10 * MS).get(0).status);
        }
    }

    @Test
    void registrationRulesNameTheField() {
        try (Rig r = new Rig()) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                    () -> r.pdA.registerMemory(java.lang.foreign.MemorySegment.ofArray(new byte[64]), AccessFlags.LOCAL_WRITE));
            assertTrue(e.getMessage().startsWith("segment: must be off-heap"), e.getMessage());
            e = assertThrows(IllegalArgumentException.class, () -> r.pdA.registerMemory(r.segment(64), AccessFlags.REMOTE_WRITE));
            assertTrue(e.getMessage().contains("requires LOCAL_WRITE"), e.getMessage());
            MemoryRegion a = r.mrA(64, AccessFlags.LOCAL_WRITE), b = r.mrA(64, AccessFlags.LOCAL_WRITE);
            assertNotEquals(a.rkey(), b.rkey());
            assertNotEquals(a.lkey(), a.rkey(), "lkey and rkey are drawn independently");
        }
    }

    @Test
    void sqdStopsNewRequestsRaisesDrainedAndRtsResumes() {
        try (Rig r = new Rig()) {
            QueuePair[] qp = r.rc();
            MemoryRegion local = r.mrA(4096, AccessFlags.LOCAL_WRITE);
            MemoryRegion remote = r.mrB(4096, AccessFlags.ALL);
            qp[0].modify(new org.urdma.verbs.QpAttributes().state(org.urdma.verbs.QpState.SQD), org.urdma.verbs.QpAttrMask.STATE);
            qp[0].postSend(new SendWorkRequest().wrId(1).opcode(WrOpcode.RDMA_WRITE).flags(SendFlags.SIGNALED)
                    .addSge(local, 0, 64).remote(remote.address(), remote.rkey()));
            r.run(10 * MS);
            assertTrue(r.pendingA().isEmpty(), "nothing new starts in SQD");
            assertEquals(0, r.fabric.linkA.sentFrames());
            org.urdma.verbs.AsyncEvent e = new org.urdma.verbs.AsyncEvent();
            boolean drained = false;
            while (r.fabric.a.pollAsyncEvent(e)) drained |= e.type == org.urdma.verbs.AsyncEventType.SQ_DRAINED && e.element == qp[0];
            assertTrue(drained);
            qp[0].modify(new org.urdma.verbs.QpAttributes().state(org.urdma.verbs.QpState.RTS), org.urdma.verbs.QpAttrMask.STATE);
            assertEquals(WcStatus.SUCCESS, r.awaitA(1, 10 * MS).get(0).status);
        }
    }

    @Test
    void aBigReadDoesNotHoldBackTheWritesBehindIt() {
        try (Rig r = new Rig(ImpairmentConfig.none(), ImpairmentConfig.none(),
                LossRecovery.goBackN(), MemoryLink.Config.defaults().withLatency(50_000).withGbps(10), 64)) {
            QueuePair[] qp = r.rc();
            MemoryRegion local = r.mrA(4 << 20, AccessFlags.LOCAL_WRITE);
            MemoryRegion remote = r.mrB(4 << 20, AccessFlags.ALL);
            qp[0].postSend(new SendWorkRequest().wrId(1).opcode(WrOpcode.RDMA_READ).flags(SendFlags.SIGNALED)
                    .addSge(local, 0, 1 << 20).remote(remote.address(), remote.rkey()));   // 1024 response PSNs
            qp[0].postSend(new SendWorkRequest().wrId(2).opcode(WrOpcode.RDMA_WRITE).flags(SendFlags.SIGNALED)
                    .addSge(local, 2 << 20, 8192).remote(remote.address() + (2 << 20), remote.rkey()));
            r.run(10_000); // well before the READ's 1 MB can come back at 10 Gbit/s
            assertEquals(1 + 8, r.fabric.linkA.sentFrames(), "the READ request and all 8 WRITE packets are out");
            List<WorkCompletion> wcs = r.awaitA(2, 100 * MS);
            assertEquals(1, wcs.get(0).wrId);
            assertEquals(WcStatus.SUCCESS, wcs.get(1).status);
        }
    }

    @Test
    void aDuplicateAtomicReplaysTheStoredOriginalAndDoesNotExecuteAgain() {
        try (ResponderHarness h = ResponderHarness.of(QpType.RC)) {
            MemoryRegion mr = h.rig.mrB(64, AccessFlags.ALL);
            mr.segment().set(ValueLayout.JAVA_LONG, 8, 40);
            org.urdma.transport.wire.Packet add = h.request(org.urdma.transport.wire.Opcode.FETCH_ADD, h.psn(0));
            add.atomicVa = mr.address() + 8;
            add.atomicRkey = mr.rkey();
            add.atomicSwapAdd = 2;
            add.ackReq = true;
            h.deliver(add);
            h.deliver(add);
            assertEquals(42, mr.segment().get(ValueLayout.JAVA_LONG, 8), "executed once");
            List<org.urdma.transport.wire.Packet> acks = h.sentOf(org.urdma.transport.wire.Opcode.RC_ATOMIC_ACKNOWLEDGE);
            assertEquals(2, acks.size(), "answered twice");
            assertEquals(40, acks.get(0).atomicAckOriginalData);
            assertEquals(40, acks.get(1).atomicAckOriginalData, "the replay carries the stored original");
            assertEquals(acks.get(0).psn, acks.get(1).psn);
        }
    }

    @Test
    void aMisalignedAtomicIsAnInvalidRequest() {
        try (ResponderHarness h = ResponderHarness.of(QpType.RC)) {
            MemoryRegion mr = h.rig.mrB(64, AccessFlags.ALL);
            org.urdma.transport.wire.Packet cas = h.request(org.urdma.transport.wire.Opcode.COMPARE_SWAP, h.psn(0));
            cas.atomicVa = mr.address() + 4;
            cas.atomicRkey = mr.rkey();
            h.deliver(cas);
            List<org.urdma.transport.wire.Packet> naks = h.acks(org.urdma.transport.wire.Aeth.SYNDROME_NAK);
            assertEquals(1, naks.size());
            assertEquals(org.urdma.transport.wire.Aeth.NAK_INVALID_REQUEST, naks.get(0).aethSyndrome & 0x1F);
            assertTrue(h.sentOf(org.urdma.transport.wire.Opcode.RC_ATOMIC_ACKNOWLEDGE).isEmpty());
        }
    }

    @Test
    void aDuplicateReadFromItsSecondPsnIsAnsweredFromThereToTheEnd() {
        try (ResponderHarness h = ResponderHarness.of(QpType.RC)) {
            int mtu = h.qb.mtu;
            MemoryRegion mr = h.rig.mrB(3 * mtu, AccessFlags.ALL);
            for (int i = 0; i < 3; i++) mr.segment().asSlice((long) i * mtu, mtu).fill((byte) (i + 1));
            int e = h.psn(0);
            org.urdma.transport.wire.Packet read = h.request(org.urdma.transport.wire.Opcode.RDMA_READ_REQUEST, e);
            read.rethVa = mr.address();
            read.rethRkey = mr.rkey();
            read.rethDmaLength = 3 * mtu;
            read.ackReq = true;
            h.deliver(read);
            assertEquals(3, h.sent.size(), "FIRST, MIDDLE, LAST");
            assertEquals((e + 3) & 0xFFFFFF, h.qb.responder.ePsn, "the READ's response PSNs are taken");
            h.sent.clear();
            org.urdma.transport.wire.Packet again = h.request(org.urdma.transport.wire.Opcode.RDMA_READ_REQUEST, (e + 1) & 0xFFFFFF);
            again.rethVa = mr.address() + mtu;
            again.rethRkey = mr.rkey();
            again.rethDmaLength = 2 * mtu;
            again.ackReq = true;
            h.deliver(again);
            assertEquals(2, h.sent.size(), "answered from its PSN on");
            assertEquals(org.urdma.transport.wire.Opcode.RC_RDMA_READ_RESPONSE_MIDDLE, h.sent.get(0).opcode);
            assertEquals((e + 1) & 0xFFFFFF, h.sent.get(0).psn);
            assertEquals(org.urdma.transport.wire.Opcode.RC_RDMA_READ_RESPONSE_LAST, h.sent.get(1).opcode);
            assertEquals(1, h.qb.counters().get(org.urdma.transport.counters.Counter.DUPLICATE_REQUEST));
        }
    }
}
