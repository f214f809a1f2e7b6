package org.urdma.transport.wire;

import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;

/** URDMA extension header (4 bytes): Flags (8: 0x80 TS, 0x40 per-packet RETH, 0x20 SACK, 0x10 FEC) | reserved (24). */
public final class Ueth {
    public static final int LENGTH = 4;
    private Ueth() {
    }

    public static int flags(final DirectBuffer b, final int o) { return Bytes.u8(b, o); }

    public static void put(final MutableDirectBuffer b, final int o, final int flags) {
        Bytes.u8(b, o, flags);
        Bytes.u24(b, o + 1, 0);
    }
}
