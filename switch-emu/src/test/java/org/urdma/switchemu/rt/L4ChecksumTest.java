package org.urdma.switchemu.rt;

import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import org.urdma.switchemu.sim.Frames;

import java.nio.ByteOrder;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class L4ChecksumTest {
    /** One's-complement sum over pseudo-header + UDP segment; a valid checksum makes it 0xFFFF. */
    private static int verify(UnsafeBuffer b, int ip) {
        int total = b.getShort(ip + 2, ByteOrder.BIG_ENDIAN) & 0xFFFF;
        int l4 = ip + 20;
        long sum = 0;
        for (int i = 12; i < 20; i += 2) {
            sum += b.getShort(ip + i, ByteOrder.BIG_ENDIAN) & 0xFFFF;
        }
        sum += 17 + (total - 20);
        for (int i = 0; i + 1 < total - 20; i += 2) {
            sum += b.getShort(l4 + i, ByteOrder.BIG_ENDIAN) & 0xFFFF;
        }
        if (((total - 20) & 1) == 1) {
            sum += (b.getByte(l4 + total - 21) & 0xFF) << 8;
        }
        while ((sum >>> 16) != 0) {
            sum = (sum & 0xFFFF) + (sum >>> 16);
        }
        return (int) sum;
    }

    @Test
    void completesUdpChecksumsUntaggedAndTaggedOddLengthToo() {
        for (int pcp : new int[]{-1, 3}) {
            for (int size : new int[]{64, 101, 1000}) {
                byte[] f = Frames.ipv4Udp(0x02_00_00_00_00_02L, 0x02_00_00_00_00_01L, pcp, 0, 0, size);
                f[f.length - 1] = 0x5A;
                UnsafeBuffer b = new UnsafeBuffer(f);
                assertTrue(L4Checksum.complete(b, 0, f.length));
                assertEquals(0xFFFF, verify(b, pcp < 0 ? 14 : 18), "pcp " + pcp + " size " + size);
            }
        }
    }

    @Test
    void leavesNonIpAndFragmentsAlone() {
        byte[] raw = Frames.ethernet(1, 2, -1, 0x88B6, 64);
        assertFalse(L4Checksum.complete(new UnsafeBuffer(raw), 0, raw.length));
        byte[] frag = Frames.ipv4Udp(1, 2, -1, 0, 0, 100);
        frag[20] = 0x20; // more fragments
        assertFalse(L4Checksum.complete(new UnsafeBuffer(frag), 0, frag.length));
    }
}
