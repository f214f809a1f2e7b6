package org.urdma.transport.wire;

import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;

/** Base transport header (12 bytes, WIRE.md §4). */
public final class Bth {
    public static final int LENGTH = 12;

    private Bth() {
    }

    public static int opcode(final DirectBuffer b, final int o) { return Bytes.u8(b, o); }
    public static boolean se(final DirectBuffer b, final int o) { return (b.getByte(o + 1) & 0x80) != 0; }
    public static boolean migReq(final DirectBuffer b, final int o) { return (b.getByte(o + 1) & 0x40) != 0; }
    public static int padCnt(final DirectBuffer b, final int o) { return (b.getByte(o + 1) >> 4) & 3; }
    public static int tver(final DirectBuffer b, final int o) { return b.getByte(o + 1) & 0x0F; }
    public static int pkey(final DirectBuffer b, final int o) { return Bytes.u16(b, o + 2); }
    public static boolean fecn(final DirectBuffer b, final int o) { return (b.getByte(o + 4) & 0x80) != 0; }
    public static boolean becn(final DirectBuffer b, final int o) { return (b.getByte(o + 4) & 0x40) != 0; }
    public static int resv6(final DirectBuffer b, final int o) { return b.getByte(o + 4) & 0x3F; }
    public static int destQp(final DirectBuffer b, final int o) { return Bytes.u24(b, o + 5); }
    public static boolean ackReq(final DirectBuffer b, final int o) { return (b.getByte(o + 8) & 0x80) != 0; }
    public static int resv7(final DirectBuffer b, final int o) { return b.getByte(o + 8) & 0x7F; }
    public static int psn(final DirectBuffer b, final int o) { return Bytes.u24(b, o + 9); }

    public static void put(
        final MutableDirectBuffer b, final int o, final int opcode, final boolean se, final boolean migReq,
        final int padCnt, final int tver, final int pkey, final boolean fecn, final boolean becn, final int resv6,
        final int destQp, final boolean ackReq, final int resv7, final int psn) {
        Bytes.u8(b, o, opcode);
        Bytes.u8(b, o + 1, (se ? 0x80 : 0) | (migReq ? 0x40 : 0) | (padCnt & 3) << 4 | (tver & 0x0F));
        Bytes.u16(b, o + 2, pkey);
        Bytes.u8(b, o + 4, (fecn ? 0x80 : 0) | (becn ? 0x40 : 0) | (resv6 & 0x3F));
        Bytes.u24(b, o + 5, destQp);
        Bytes.u8(b, o + 8, (ackReq ? 0x80 : 0) | (resv7 & 0x7F));
        Bytes.u24(b, o + 9, psn);
    }

    /** Sets FECN (the switch/receiver side of ECN for RoCEv1-style marking). */
    public static void fecn(final MutableDirectBuffer b, final int o, final boolean v) {
        b.putByte(o + 4, (byte)(v ? b.getByte(o + 4) | 0x80 : b.getByte(o + 4) & 0x7F));
    }
}
