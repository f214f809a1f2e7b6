package org.urdma.transport.wire;

import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;

/** PAXI CBFC credit body (16 bytes, opcode 0xC0): 8 x 16-bit credit counts, VC 0 first. */
public final class CbfcEth {
    public static final int LENGTH = 16;
    public static final int VCS = 8;
    private CbfcEth() {
    }

    public static int credit(final DirectBuffer b, final int o, final int vc) { return Bytes.u16(b, o + 2 * vc); }
    public static void credit(final MutableDirectBuffer b, final int o, final int vc, final int v) { Bytes.u16(b, o + 2 * vc, v); }
}
