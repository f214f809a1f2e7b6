package org.urdma.transport.fuzz;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.util.EnumMap;
import java.util.SplittableRandom;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import org.urdma.transport.wire.DecodeStatus;
import org.urdma.transport.wire.Framing;
import org.urdma.transport.wire.FramingKind;
import org.urdma.transport.wire.Framings;
import org.urdma.transport.wire.Opcode;
import org.urdma.transport.wire.Packet;

class FrameMutatorTest {
    private static int validWrite(Framing f, UnsafeBuffer out) {
        UnsafeBuffer payload = new UnsafeBuffer(ByteBuffer.allocateDirect(1024));
        Packet p = new Packet();
        p.dstMac = 0x020000000002L;
        p.srcMac = 0x020000000001L;
        p.ipSrc = 0x0A000001;
        p.ipDst = 0x0A000002;
        p.opcode = Opcode.RC_RDMA_WRITE_ONLY;
        p.destQp = 0x42;
        p.psn = 100;
        p.rethVa = 0x1000;
        p.rethRkey = 0x1234;
        p.rethDmaLength = 512;
        p.payload(payload, 0, 512);
        return f.encode(p, out, 0);
    }

    @Test
    void structuredMutationsKeepMostFramesValidSoTheyReachTheEngine() {
        for (FramingKind kind : new FramingKind[] {FramingKind.ROCE1, FramingKind.ROCE2, FramingKind.PAXI_STANDARD,
            FramingKind.PAXI_AFH1, FramingKind.PAXI_AFH2}) {
            Framing f = Framings.of(kind, true, false);
            UnsafeBuffer src = new UnsafeBuffer(ByteBuffer.allocateDirect(8192));
            UnsafeBuffer dst = new UnsafeBuffer(ByteBuffer.allocateDirect(8192));
            int len = validWrite(f, src);
            FrameMutator m = new FrameMutator(kind, true, new SplittableRandom(1), new Targets());
            EnumMap<DecodeStatus, Integer> seen = new EnumMap<>(DecodeStatus.class);
            Packet p = new Packet();
            int changed = 0;
            for (int i = 0; i < 20_000; i++) {
                int out = m.mutate(src, 0, len, dst, 0, 8192);
                if (out != len || !java.util.Arrays.equals(bytes(src, len), bytes(dst, out))) changed++;
                seen.merge(f.decode(dst, 0, out, p), 1, Integer::sum);
            }
            // a field of a header this opcode lacks (an AETH on a WRITE) leaves the frame as it was
            assertTrue(changed > 15_000, kind + ": frames actually changed " + changed);
            assertTrue(seen.get(DecodeStatus.OK) > 10_000, kind + ": " + seen);
            // and the rest break in several ways (AFH frames have no length field: a cut shows as a bad ICRC or PadCnt)
            assertTrue(seen.getOrDefault(DecodeStatus.BAD_ICRC, 0) > 100 && seen.size() >= 5, kind + ": " + seen);
        }
    }

    @Test
    void theSameSeedMutatesTheSameWay() {
        Framing f = Framings.of(FramingKind.ROCE2, true, false);
        UnsafeBuffer src = new UnsafeBuffer(ByteBuffer.allocateDirect(8192));
        int len = validWrite(f, src);
        UnsafeBuffer x = new UnsafeBuffer(ByteBuffer.allocateDirect(8192)), y = new UnsafeBuffer(ByteBuffer.allocateDirect(8192));
        FrameMutator a = new FrameMutator(FramingKind.ROCE2, true, new SplittableRandom(9), new Targets());
        FrameMutator b = new FrameMutator(FramingKind.ROCE2, true, new SplittableRandom(9), new Targets());
        for (int i = 0; i < 5_000; i++) {
            int la = a.mutate(src, 0, len, x, 0, 8192), lb = b.mutate(src, 0, len, y, 0, 8192);
            assertEquals(la, lb);
            assertEquals(a.last(), b.last());
            assertTrue(java.util.Arrays.equals(bytes(x, la), bytes(y, lb)), "mutation " + i);
        }
    }

    private static byte[] bytes(UnsafeBuffer b, int len) {
        byte[] a = new byte[len];
        b.getBytes(0, a);
        return a;
    }
}
