package org.urdma.transport.wire;

import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;

/** URDMA FEC-ETH (8 bytes): group base PSN (24) | m (8, data packets per group) | r (8, parity packets) | index (8) | XOR of the group's data lengths (16). WIRE.md §10 names the 2-byte length field without placing it; it sits here. */
public final class FecEth {
    public static final int LENGTH = 8;
    private FecEth() {
    }

    public static int basePsn(final DirectBuffer b, final int o) { return Bytes.u24(b, o); }
    public static int m(final DirectBuffer b, final int o) { return Bytes.u8(b, o + 3); }
    public static int r(final DirectBuffer b, final int o) { return Bytes.u8(b, o + 4); }
    public static int index(final DirectBuffer b, final int o) { return Bytes.u8(b, o + 5); }
    public static int lengthXor(final DirectBuffer b, final int o) { return Bytes.u16(b, o + 6); }

    public static void put(
        final MutableDirectBuffer b, final int o, final int basePsn, final int m, final int r, final int index,
        final int lengthXor) {
        Bytes.u24(b, o, basePsn);
        Bytes.u8(b, o + 3, m);
        Bytes.u8(b, o + 4, r);
        Bytes.u8(b, o + 5, index);
        Bytes.u16(b, o + 6, lengthXor);
    }
}
