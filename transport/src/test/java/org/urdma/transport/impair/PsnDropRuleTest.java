package org.urdma.transport.impair;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteOrder;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

/** A drop pattern by content: the first frame of each listed PSN offset of a QP, whatever the framing around the BTH. */
class PsnDropRuleTest {
    private static final int RC_WRITE_MIDDLE = 0x07;
    private static final int RC_ACK = 0x11;

    /** A RoCEv2 (IPv4/UDP 4791) frame, optionally VLAN-tagged, with a BTH of {@code opcode}, {@code qp}, {@code psn}. */
    static UnsafeBuffer roce2(int opcode, int qp, int psn, boolean vlan) {
        UnsafeBuffer b = new UnsafeBuffer(new byte[128]);
        int p = 12;
        if (vlan) {
            b.putShort(p, (short) 0x8100, ByteOrder.BIG_ENDIAN);
            b.putShort(p + 2, (short) 0x6001, ByteOrder.BIG_ENDIAN);
            p += 4;
        }
        b.putShort(p, (short) 0x0800, ByteOrder.BIG_ENDIAN);
        int ip = p + 2;
        b.putByte(ip, (byte) 0x45);
        b.putShort(ip + 6, (short) 0x4000, ByteOrder.BIG_ENDIAN); // DF
        b.putByte(ip + 9, (byte) 17);
        b.putShort(ip + 20 + 2, (short) 4791, ByteOrder.BIG_ENDIAN);
        bth(b, ip + 28, opcode, qp, psn);
        return b;
    }

    static UnsafeBuffer roce1(int opcode, int qp, int psn) {
        UnsafeBuffer b = new UnsafeBuffer(new byte[128]);
        b.putShort(12, (short) 0x8915, ByteOrder.BIG_ENDIAN);
        b.putByte(14, (byte) 0x60);
        b.putByte(14 + 6, (byte) 0x1B);
        bth(b, 14 + 40, opcode, qp, psn);
        return b;
    }

    private static void bth(UnsafeBuffer b, int at, int opcode, int qp, int psn) {
        b.putByte(at, (byte) opcode);
        b.putInt(at + 4, qp, ByteOrder.BIG_ENDIAN);
        b.putInt(at + 8, psn & 0xFFFFFF, ByteOrder.BIG_ENDIAN);
    }

    private static boolean offer(PsnDropRule r, UnsafeBuffer b) {
        return r.drops(b, 0, b.capacity());
    }

    @Test
    void dropsTheFirstTransmissionOfEachListedOffsetAndLetsTheResendsPass() {
        PsnDropRule r = PsnPattern.of(0x12, "2,4-5").newRule();
        int start = 0xFFFFFE; // offsets count across the PSN wrap
        StringBuilder firstRound = new StringBuilder();
        for (int i = 0; i < 8; i++) {
            if (offer(r, roce2(RC_WRITE_MIDDLE, 0x12, start + i, false))) firstRound.append(i).append(' ');
        }
        assertEquals("2 4 5 ", firstRound.toString());
        for (int i = 2; i < 8; i++) {
            assertFalse(offer(r, roce2(RC_WRITE_MIDDLE, 0x12, start + i, false)), "resend of offset " + i + " passes");
        }
        assertEquals(3, r.dropped());
    }

    @Test
    void aQpOfItsOwnIsLeftAloneAndAnyQpCountsEachFromItsFirstPsn() {
        PsnDropRule one = PsnPattern.of(0x12, "0").newRule();
        assertFalse(offer(one, roce2(RC_WRITE_MIDDLE, 0x13, 100, false)));
        assertTrue(offer(one, roce2(RC_WRITE_MIDDLE, 0x12, 500, false)));
        PsnDropRule any = PsnPattern.of(-1, "1").newRule();
        assertFalse(offer(any, roce2(RC_WRITE_MIDDLE, 0x20, 1000, false)));
        assertFalse(offer(any, roce2(RC_WRITE_MIDDLE, 0x21, 7, false)));
        assertTrue(offer(any, roce2(RC_WRITE_MIDDLE, 0x21, 8, true)), "VLAN-tagged RoCEv2");
        assertTrue(offer(any, roce1(RC_WRITE_MIDDLE, 0x20, 1001)), "RoCEv1");
        assertEquals(2, any.dropped());
    }

    @Test
    void acksAndOtherFramesAreNeverDropped() {
        PsnDropRule r = PsnPattern.of(-1, "0-10").newRule();
        assertFalse(offer(r, roce2(RC_ACK, 0x12, 0, false)), "ACK");
        assertFalse(offer(r, roce2(0x81, 0x12, 0, false)), "CNP");
        UnsafeBuffer udp = roce2(RC_WRITE_MIDDLE, 0x12, 0, false);
        udp.putShort(14 + 20 + 2, (short) 4792, ByteOrder.BIG_ENDIAN);
        assertFalse(offer(r, udp), "UDP to another port");
        UnsafeBuffer arp = new UnsafeBuffer(new byte[60]);
        arp.putShort(12, (short) 0x0806, ByteOrder.BIG_ENDIAN);
        assertFalse(offer(r, arp), "ARP");
        assertFalse(r.drops(roce2(RC_WRITE_MIDDLE, 0x12, 0, false), 0, 14 + 28 + 11), "truncated BTH");
        assertEquals(0, r.dropped());
    }

    @Test
    void badPatternsAreRefusedNamingTheField() {
        assertTrue(assertThrows(IllegalArgumentException.class, () -> PsnPattern.of(-1, "2,x")).getMessage().startsWith("psns: 'x'"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> PsnPattern.of(-1, "5-3")).getMessage().startsWith("psns:"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> PsnPattern.of(-1, "-1")).getMessage().startsWith("psns:"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> PsnPattern.of(-1, "0-70000")).getMessage().startsWith("psns:"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> PsnPattern.of(1 << 24, "1")).getMessage().startsWith("qp:"));
        assertEquals("qp 0x12 psns 2,4-5,100-103", PsnPattern.of(0x12, "100-103, 5,4 ,2").toString());
    }
}
