package org.urdma.transport.port;

import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;

/**
 * ARP for IPv4 over Ethernet (RFC 826), as static flyweight accessors over a frame:
 * {@code Eth(14) [802.1Q(4)] | htype 1 | ptype 0x0800 | hlen 6 | plen 4 | oper | SHA | SPA | THA | TPA}, padded to 60.
 */
public final class ArpFrame {
    public static final int ETHER_TYPE = 0x0806;
    public static final int REQUEST = 1;
    public static final int REPLY = 2;
    public static final int BODY_LENGTH = 28;
    public static final int MIN_FRAME = 60;
    public static final long BROADCAST = 0xFFFF_FFFF_FFFFL;

    private ArpFrame() {
    }

    /**
     * Offset of the ARP body when {@code b[offset, offset + length)} is a well-formed Ethernet/IPv4 ARP frame
     * (optionally with one 802.1Q tag in the data), else -1. Never throws.
     */
    public static int bodyOffset(DirectBuffer b, int offset, int length) {
        if (length < 14 + BODY_LENGTH) return -1;
        int t = offset + 12;
        int type = u16(b, t);
        if (type == 0x8100) {
            if (length < 18 + BODY_LENGTH) return -1;
            t += 4;
            type = u16(b, t);
        }
        if (type != ETHER_TYPE) return -1;
        int a = t + 2;
        if (u16(b, a) != 1 || u16(b, a + 2) != 0x0800 || (b.getByte(a + 4) & 0xFF) != 6 || (b.getByte(a + 5) & 0xFF) != 4) return -1;
        int op = u16(b, a + 6);
        return op == REQUEST || op == REPLY ? a : -1;
    }

    public static int operation(DirectBuffer b, int body) {
        return u16(b, body + 6);
    }

    public static long senderMac(DirectBuffer b, int body) {
        return mac(b, body + 8);
    }

    public static int senderIp(DirectBuffer b, int body) {
        return b.getInt(body + 14, java.nio.ByteOrder.BIG_ENDIAN);
    }

    public static long targetMac(DirectBuffer b, int body) {
        return mac(b, body + 18);
    }

    public static int targetIp(DirectBuffer b, int body) {
        return b.getInt(body + 24, java.nio.ByteOrder.BIG_ENDIAN);
    }

    /**
     * Writes a whole ARP frame at {@code offset}: to {@code ethDst}, with an 802.1Q tag when {@code tci >= 0}.
     * For a request pass {@link #BROADCAST} as {@code ethDst} and 0 as {@code targetMac}.
     *
     * @return the frame length (at least 60)
     */
    public static int encode(MutableDirectBuffer b, int offset, long ethDst, long srcMac, int tci, int op,
                             int senderIp, long targetMac, int targetIp) {
        putMac(b, offset, ethDst);
        putMac(b, offset + 6, srcMac);
        int t = offset + 12;
        if (tci >= 0) {
            putU16(b, t, 0x8100);
            putU16(b, t + 2, tci);
            t += 4;
        }
        putU16(b, t, ETHER_TYPE);
        int a = t + 2;
        putU16(b, a, 1);
        putU16(b, a + 2, 0x0800);
        b.putByte(a + 4, (byte) 6);
        b.putByte(a + 5, (byte) 4);
        putU16(b, a + 6, op);
        putMac(b, a + 8, srcMac);
        b.putInt(a + 14, senderIp, java.nio.ByteOrder.BIG_ENDIAN);
        putMac(b, a + 18, targetMac);
        b.putInt(a + 24, targetIp, java.nio.ByteOrder.BIG_ENDIAN);
        int end = a + BODY_LENGTH;
        int len = Math.max(end - offset, MIN_FRAME);
        b.setMemory(end, offset + len - end, (byte) 0);
        return len;
    }

    static int u16(DirectBuffer b, int i) {
        return ((b.getByte(i) & 0xFF) << 8) | (b.getByte(i + 1) & 0xFF);
    }

    static void putU16(MutableDirectBuffer b, int i, int v) {
        b.putByte(i, (byte) (v >>> 8));
        b.putByte(i + 1, (byte) v);
    }

    static long mac(DirectBuffer b, int i) {
        long v = 0;
        for (int k = 0; k < 6; k++) v = (v << 8) | (b.getByte(i + k) & 0xFF);
        return v;
    }

    static void putMac(MutableDirectBuffer b, int i, long v) {
        for (int k = 5; k >= 0; k--) {
            b.putByte(i + k, (byte) v);
            v >>>= 8;
        }
    }
}
