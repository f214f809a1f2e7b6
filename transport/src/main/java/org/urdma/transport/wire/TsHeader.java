package org.urdma.transport.wire;

import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;

/** URDMA timestamp header (8 bytes): T1 sender transmit time (ns mod 2^32) | Tr last one-way delay receiver to sender. */
public final class TsHeader {
    public static final int LENGTH = 8;
    private TsHeader() {
    }

    public static int t1(final DirectBuffer b, final int o) { return Bytes.i32(b, o); }
    public static int tr(final DirectBuffer b, final int o) { return Bytes.i32(b, o + 4); }

    public static void put(final MutableDirectBuffer b, final int o, final int t1, final int tr) {
        Bytes.i32(b, o, t1);
        Bytes.i32(b, o + 4, tr);
    }
}
