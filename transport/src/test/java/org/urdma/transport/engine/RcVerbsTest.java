package org.urdma.transport.engine;

import static org.junit.jupiter.api.Assertions.*;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.urdma.verbs.AccessFlags;
import org.urdma.verbs.MemoryRegion;
import org.urdma.verbs.QueuePair;
import org.urdma.verbs.ReceiveWorkRequest;
import org.urdma.verbs.SendFlags;
import org.urdma.verbs.SendWorkRequest;
import org.urdma.verbs.WcOpcode;
import org.urdma.verbs.WcStatus;
import org.urdma.verbs.WorkCompletion;
import org.urdma.verbs.WrOpcode;

class RcVerbsTest {
    static final long MS = 1_000_000L;
    static final int RW = AccessFlags.LOCAL_WRITE | AccessFlags.REMOTE_WRITE | AccessFlags.REMOTE_READ | AccessFlags.REMOTE_ATOMIC;

    static void fill(MemorySegment s, long seed) {
        for (long i = 0; i < s.byteSize(); i++) s.set(ValueLayout.JAVA_BYTE, i, (byte) (i * 31 + seed));
    }

    @Test
    void sendMovesBytesAcrossSegmentsAndCompletesBothSides() {
        try (Rig r = new Rig()) {
            QueuePair[] qp = r.rc();
            int len = 5000; // 5 packets at MTU 1024
            MemoryRegion src = r.mrA(len, AccessFlags.LOCAL_WRITE);
            MemoryRegion dst = r.mrB(8192, AccessFlags.LOCAL_WRITE);
            fill(src.segment(), 7);
            qp[1].postRecv(new ReceiveWorkRequest().wrId(77).addSge(dst, 0, 3000).addSge(dst, 4096, 4096));
            qp[0].postSend(new SendWorkRequest().wrId(1).opcode(WrOpcode.SEND_WITH_IMM).immData(0xABCD)
                    .flags(SendFlags.SIGNALED).addSge(src, 0, len));
            WorkCompletion s = r.awaitA(1, 100 * MS).get(0);
            WorkCompletion v = r.awaitB(1, 100 * MS).get(0);
            assertEquals(WcStatus.SUCCESS, s.status, s.toString());
            assertEquals(WcOpcode.SEND, s.opcode);
            assertEquals(1, s.wrId);
            assertEquals(WcStatus.SUCCESS, v.status, v.toString());
            assertEquals(WcOpcode.RECV, v.opcode);
            assertEquals(len, v.byteLen);
            assertEquals(0xABCD, v.immData);
            assertTrue(v.hasImm());
            assertEquals(-1, src.segment().asSlice(0, 3000).mismatch(dst.segment().asSlice(0, 3000)));
            assertEquals(-1, src.segment().asSlice(3000, 2000).mismatch(dst.segment().asSlice(4096, 2000)));
        }
    }

    @Test
    void writeWithImmAndReadMoveTheRightBytes() {
        try (Rig r = new Rig()) {
            QueuePair[] qp = r.rc();
            MemoryRegion local = r.mrA(1 << 16, AccessFlags.LOCAL_WRITE);
            MemoryRegion remote = r.mrB(1 << 16, RW);
            fill(local.segment(), 3);
            qp[1].postRecv(new ReceiveWorkRequest().wrId(5));
            qp[0].postSend(new SendWorkRequest().wrId(10).opcode(WrOpcode.RDMA_WRITE_WITH_IMM).immData(99)
                    .flags(SendFlags.SIGNALED).addSge(local, 0, 10_000).remote(remote.address() + 100, remote.rkey()));
            List<WorkCompletion> a = r.awaitA(1, 100 * MS);
            assertEquals(WcStatus.SUCCESS, a.get(0).status, a.toString());
            assertEquals(WcOpcode.RDMA_WRITE, a.get(0).opcode);
            WorkCompletion b = r.awaitB(1, 100 * MS).get(0);
            assertEquals(WcOpcode.RECV_RDMA_WITH_IMM, b.opcode);
            assertEquals(99, b.immData);
            assertEquals(10_000, b.byteLen);
            assertEquals(-1, local.segment().asSlice(0, 10_000).mismatch(remote.segment().asSlice(100, 10_000)));
            assertEquals(0, remote.segment().get(ValueLayout.JAVA_BYTE, 99));
            assertEquals(0, remote.segment().get(ValueLayout.JAVA_BYTE, 10_100));

            // READ back into another place
            MemoryRegion back = r.mrA(1 << 16, AccessFlags.LOCAL_WRITE);
            qp[0].postSend(new SendWorkRequest().wrId(11).opcode(WrOpcode.RDMA_READ).flags(SendFlags.SIGNALED)
                    .addSge(back, 8, 10_000).remote(remote.address() + 100, remote.rkey()));
            WorkCompletion rd = r.awaitA(1, 100 * MS).get(0);
            assertEquals(WcStatus.SUCCESS, rd.status, rd.toString());
            assertEquals(WcOpcode.RDMA_READ, rd.opcode);
            assertEquals(10_000, rd.byteLen);
            assertEquals(-1, local.segment().asSlice(0, 10_000).mismatch(back.segment().asSlice(8, 10_000)));
        }
    }

    @Test
    void atomicsReturnTheOriginalValueAndUpdateRemoteMemory() {
        try (Rig r = new Rig()) {
            QueuePair[] qp = r.rc();
            MemoryRegion local = r.mrA(64, AccessFlags.LOCAL_WRITE);
            MemoryRegion remote = r.mrB(64, RW);
            remote.segment().set(ValueLayout.JAVA_LONG, 8, 40L);
            qp[0].postSend(new SendWorkRequest().wrId(1).opcode(WrOpcode.ATOMIC_FETCH_AND_ADD).flags(SendFlags.SIGNALED)
                    .addSge(local, 0, 8).remote(remote.address() + 8, remote.rkey()).atomic(2, 0));
            qp[0].postSend(new SendWorkRequest().wrId(2).opcode(WrOpcode.ATOMIC_CMP_AND_SWP).flags(SendFlags.SIGNALED)
                    .addSge(local, 8, 8).remote(remote.address() + 8, remote.rkey()).atomic(42, 1000));
            qp[0].postSend(new SendWorkRequest().wrId(3).opcode(WrOpcode.ATOMIC_CMP_AND_SWP).flags(SendFlags.SIGNALED)
                    .addSge(local, 16, 8).remote(remote.address() + 8, remote.rkey()).atomic(42, 7));
            List<WorkCompletion> wcs = r.awaitA(3, 100 * MS);
            for (WorkCompletion w : wcs) assertEquals(WcStatus.SUCCESS, w.status, w.toString());
            assertEquals(WcOpcode.FETCH_ADD, wcs.get(0).opcode);
            assertEquals(WcOpcode.COMP_SWAP, wcs.get(1).opcode);
            assertEquals(40L, local.segment().get(ValueLayout.JAVA_LONG, 0));
            assertEquals(42L, local.segment().get(ValueLayout.JAVA_LONG, 8));
            assertEquals(1000L, local.segment().get(ValueLayout.JAVA_LONG, 16)); // compare failed: no swap
            assertEquals(1000L, remote.segment().get(ValueLayout.JAVA_LONG, 8));
        }
    }
}
