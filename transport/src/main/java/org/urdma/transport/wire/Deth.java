package org.urdma.transport.wire;

import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;

/** Datagram extended transport header (8 bytes): Q_Key (32), reserved (8), SrcQP (24). */
public final class Deth {
    public static final int LENGTH = 8;
    private Deth() {
    }

    public static int qkey(final DirectBuffer b, final int o) { return Bytes.i32(b, o); }
    public static int srcQp(final DirectBuffer b, final int o) { return Bytes.u24(b, o + 5); }

    public static void put(final MutableDirectBuffer b, final int o, final int qkey, final int srcQp) {
        Bytes.i32(b, o, qkey);
        Bytes.u8(b, o + 4, 0);
        Bytes.u24(b, o + 5, srcQp);
    }
}
