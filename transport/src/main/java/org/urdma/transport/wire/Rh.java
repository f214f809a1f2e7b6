package org.urdma.transport.wire;

import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;

/**
 * PAXI RH (8 bytes, WIRE.md §9): OpCode (8) | Flags (8: SE 0x80, AckReq 0x40, VC 0x38, PadCnt 0x03) |
 * DestQP (24) | PSN (24). Replaces the BTH; extended headers follow as after a BTH.
 */
public final class Rh {
    public static final int LENGTH = 8;

    private Rh() {
    }

    public static int opcode(final DirectBuffer b, final int o) { return Bytes.u8(b, o); }
    public static boolean se(final DirectBuffer b, final int o) { return (b.getByte(o + 1) & 0x80) != 0; }
    public static boolean ackReq(final DirectBuffer b, final int o) { return (b.getByte(o + 1) & 0x40) != 0; }
    public static int vc(final DirectBuffer b, final int o) { return (b.getByte(o + 1) >> 3) & 7; }
    public static int padCnt(final DirectBuffer b, final int o) { return b.getByte(o + 1) & 3; }
    public static int destQp(final DirectBuffer b, final int o) { return Bytes.u24(b, o + 2); }
    public static int psn(final DirectBuffer b, final int o) { return Bytes.u24(b, o + 5); }

    public static void put(
        final MutableDirectBuffer b, final int o, final int opcode, final boolean se, final boolean ackReq,
        final int vc, final int padCnt, final int destQp, final int psn) {
        Bytes.u8(b, o, opcode);
        Bytes.u8(b, o + 1, (se ? 0x80 : 0) | (ackReq ? 0x40 : 0) | (vc & 7) << 3 | (padCnt & 3));
        Bytes.u24(b, o + 2, destQp);
        Bytes.u24(b, o + 5, psn);
    }
}
