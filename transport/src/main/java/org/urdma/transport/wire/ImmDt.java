package org.urdma.transport.wire;

import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;

/** Immediate data (4 bytes), carried opaque (big-endian on the wire). */
public final class ImmDt {
    public static final int LENGTH = 4;
    private ImmDt() {
    }

    public static int imm(final DirectBuffer b, final int o) { return Bytes.i32(b, o); }
    public static void put(final MutableDirectBuffer b, final int o, final int imm) { Bytes.i32(b, o, imm); }
}
