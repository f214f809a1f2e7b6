package org.urdma.transport.engine;

import static org.junit.jupiter.api.Assertions.*;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.zip.CRC32;
import org.junit.jupiter.api.Test;
import org.urdma.transport.counters.Counter;
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
import org.urdma.verbs.WcOpcode;
import org.urdma.verbs.WcStatus;
import org.urdma.verbs.WorkCompletion;
import org.urdma.verbs.WrOpcode;

/** RC recovers from loss, reordering and duplication; go-back-0 livelocks where go-back-N does not. */
class LossRecoveryTest {
    static final long MS = 1_000_000L;
    static final int MAX = 4 << 20;

    static long crc(MemorySegment s) {
        CRC32 c = new CRC32();
        c.update(s.asByteBuffer());
        return c.getValue();
    }

    /** 1 % lost, 1 % duplicated, 1 % sent at once past the others (held 50 µs). */
    static ImpairmentConfig rough(long seed) {
        return ImpairmentConfig.none().lossRandom(0.01, 0).duplicate(0.01, 0).delay(50_000, 0, 0).reorder(0.01, 0, 1).seed(seed);
    }

    @Test
    void thousandMixedMessagesSurviveLossReorderAndDuplication() {
        ImpairmentConfig ab = rough(11);
        ImpairmentConfig ba = rough(12);
        try (Rig r = new Rig(ab, ba, LossRecovery.goBackN(), MemoryLink.Config.defaults().withLatency(2_000), 64)) {
            QueuePair[] qp = r.connect(QpType.RC, MemoryFabric.Connection.defaults().withMtu(PathMtu.MTU_4096).withTimeout(8), 1024);
            SplittableRandom rnd = new SplittableRandom(2016);
            MemoryRegion src = r.mrA(MAX, AccessFlags.LOCAL_WRITE);
            MemoryRegion target = r.mrB(MAX, AccessFlags.ALL);      // WRITE destination
            MemoryRegion readSrc = r.mrB(MAX, AccessFlags.ALL);     // READ source, never written
            MemoryRegion counter = r.mrB(8, AccessFlags.ALL);
            for (long i = 0; i < MAX; i += 8) {
                src.segment().set(ValueLayout.JAVA_LONG_UNALIGNED, i, rnd.nextLong());
                readSrc.segment().set(ValueLayout.JAVA_LONG_UNALIGNED, i, rnd.nextLong());
            }
            byte[] model = new byte[MAX];
            int n = 1000;
            int[] kind = new int[n], size = new int[n], srcOff = new int[n], dstOff = new int[n];
            long sendBytes = 0, readBytes = 0;
            for (int i = 0; i < n; i++) {
                kind[i] = rnd.nextInt(5);
                int s = i == 0 ? 1 : i == 1 ? MAX : (int) Math.min(MAX, Math.max(1, Math.pow(2, rnd.nextDouble() * 22)));
                if (kind[i] == 4) s = 8;
                size[i] = s;
                srcOff[i] = rnd.nextInt(MAX - s + 1);
                dstOff[i] = kind[i] == 4 ? 0 : rnd.nextInt(MAX - s + 1);
                if (kind[i] == 2) sendBytes += s;
                if (kind[i] == 3) readBytes += s;
            }
            MemoryRegion inbox = r.mrB(Math.max(1, sendBytes), AccessFlags.LOCAL_WRITE);
            MemoryRegion readInto = r.mrA(Math.max(1, readBytes), AccessFlags.LOCAL_WRITE);
            MemoryRegion atomicOut = r.mrA(8L * n, AccessFlags.LOCAL_WRITE);
            long inboxPos = 0, readPos = 0, adds = 0;
            long[] inboxAt = new long[n], readAt = new long[n];
            SendWorkRequest wr = new SendWorkRequest();
            for (int i = 0; i < n; i++) {
                wr.reset().wrId(i).flags(SendFlags.SIGNALED);
                switch (kind[i]) {
                    case 0, 1 -> {
                        wr.opcode(kind[i] == 0 ? WrOpcode.RDMA_WRITE : WrOpcode.RDMA_WRITE_WITH_IMM).immData(i)
                                .addSge(src, srcOff[i], size[i]).remote(target.address() + dstOff[i], target.rkey());
                        MemorySegment.copy(src.segment(), ValueLayout.JAVA_BYTE, srcOff[i], model, dstOff[i], size[i]);
                        if (kind[i] == 1) qp[1].postRecv(new ReceiveWorkRequest().wrId(i));
                    }
                    case 2 -> {
                        wr.opcode(WrOpcode.SEND).addSge(src, srcOff[i], size[i]);
                        inboxAt[i] = inboxPos;
                        qp[1].postRecv(new ReceiveWorkRequest().wrId(i).addSge(inbox, inboxPos, size[i]));
                        inboxPos += size[i];
                    }
                    case 3 -> {
                        readAt[i] = readPos;
                        wr.opcode(WrOpcode.RDMA_READ).addSge(readInto, readPos, size[i]).remote(readSrc.address() + srcOff[i], readSrc.rkey());
                        readPos += size[i];
                    }
                    default -> {
                        wr.opcode(WrOpcode.ATOMIC_FETCH_AND_ADD).addSge(atomicOut, 8L * i, 8).remote(counter.address(), counter.rkey()).atomic(i + 1, 0);
                        adds += i + 1;
                    }
                }
                qp[0].postSend(wr);
            }
            List<WorkCompletion> wcs = r.awaitA(n, 60_000 * MS);
            for (int i = 0; i < n; i++) {
                WorkCompletion w = wcs.get(i);
                assertEquals(WcStatus.SUCCESS, w.status, "message " + i + ": " + w);
                assertEquals(i, w.wrId, "in order");
            }
            int recvs = 0;
            for (int i = 0; i < n; i++) if (kind[i] == 1 || kind[i] == 2) recvs++;
            List<WorkCompletion> rwcs = r.awaitB(recvs, 1000 * MS);
            for (WorkCompletion w : rwcs) {
                int i = (int) w.wrId;
                assertEquals(WcStatus.SUCCESS, w.status, w.toString());
                assertEquals(size[i], w.byteLen);
                assertEquals(kind[i] == 1 ? WcOpcode.RECV_RDMA_WITH_IMM : WcOpcode.RECV, w.opcode);
            }
            // checksummed remote memory
            assertEquals(crc(MemorySegment.ofArray(model)), crc(target.segment()), "WRITE target");
            for (int i = 0; i < n; i++) {
                if (kind[i] == 2) {
                    assertEquals(-1, src.segment().asSlice(srcOff[i], size[i]).mismatch(inbox.segment().asSlice(inboxAt[i], size[i])), "SEND " + i);
                } else if (kind[i] == 3) {
                    assertEquals(-1, readSrc.segment().asSlice(srcOff[i], size[i]).mismatch(readInto.segment().asSlice(readAt[i], size[i])), "READ " + i);
                }
            }
            assertEquals(adds, counter.segment().get(ValueLayout.JAVA_LONG, 0), "each FETCH_ADD applied exactly once");
            SoftQp a = (SoftQp) qp[0];
            assertTrue(r.fabric.linkA.lostFrames() > 100 && r.fabric.linkB.lostFrames() > 10, "loss actually happened");
            assertTrue(r.fabric.linkA.duplicatedFrames() > 50 && r.fabric.linkA.reorderedFrames() > 50);
            assertTrue(a.stats().get(Counter.RETRANSMITTED_PKTS) > 0 && a.stats().get(Counter.COMPLETER_RETRY_ERR) > 0);
            System.out.printf("1000 mixed: %d frames A->B (%d lost, %d dup, %d reordered), %d retransmitted, %d retries "
                            + "(%d NAKs, %d implicit NAKs, %d READ gaps, %d timeouts), %d frames B->A, %.1f ms virtual%n",
                    r.fabric.linkA.sentFrames(), r.fabric.linkA.lostFrames(), r.fabric.linkA.duplicatedFrames(),
                    r.fabric.linkA.reorderedFrames(), a.stats().get(Counter.RETRANSMITTED_PKTS), a.stats().get(Counter.COMPLETER_RETRY_ERR),
                    a.counters().get(org.urdma.transport.counters.Counter.NAKS_RCVD), a.completer.implicitNaks,
                    a.completer.readGaps(), a.stats().get(Counter.ACK_TIMEOUTS),
                    r.fabric.linkB.sentFrames(), (r.sim.now() - Rig.START) / 1e6);
        }
    }
}
