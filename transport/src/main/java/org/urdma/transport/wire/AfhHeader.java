package org.urdma.transport.wire;

import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;

/**
 * PAXI AFH headers (12 bytes, WIRE.md §9), which take the place of the Ethernet DA/SA.
 * AFH_GEN1: DA (6) | TC (1) | SA low 40 bits (5).
 * AFH_GEN2_16b: DA (6) | TC (1) | SRC_XPU (2) | OpFlags (1) | DST_QPID (2).
 */
public final class AfhHeader {
    public static final int LENGTH = 12;

    private AfhHeader() {
    }

    public static long dst(final DirectBuffer b, final int o) { return Bytes.u48(b, o); }
    public static int tc(final DirectBuffer b, final int o) { return Bytes.u8(b, o + 6); }
    public static long srcLow40(final DirectBuffer b, final int o) { return Bytes.u40(b, o + 7); }
    public static int srcXpu(final DirectBuffer b, final int o) { return Bytes.u16(b, o + 7); }
    public static int opFlags(final DirectBuffer b, final int o) { return Bytes.u8(b, o + 9); }
    public static int dstQpid(final DirectBuffer b, final int o) { return Bytes.u16(b, o + 10); }

    public static void putGen1(final MutableDirectBuffer b, final int o, final long dst, final int tc, final long src) {
        Bytes.u48(b, o, dst);
        Bytes.u8(b, o + 6, tc);
        Bytes.u40(b, o + 7, src & 0xFF_FFFF_FFFFL);
    }

    public static void putGen2(
        final MutableDirectBuffer b, final int o, final long dst, final int tc, final int srcXpu, final int opFlags,
        final int dstQpid) {
        Bytes.u48(b, o, dst);
        Bytes.u8(b, o + 6, tc);
        Bytes.u16(b, o + 7, srcXpu);
        Bytes.u8(b, o + 9, opFlags);
        Bytes.u16(b, o + 10, dstQpid);
    }
}
