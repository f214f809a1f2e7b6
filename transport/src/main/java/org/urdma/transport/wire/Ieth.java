package org.urdma.transport.wire;

import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;

/** Invalidate extended transport header (4 bytes): the R_Key to invalidate. */
public final class Ieth {
    public static final int LENGTH = 4;
    private Ieth() {
    }

    public static int rkey(final DirectBuffer b, final int o) { return Bytes.i32(b, o); }
    public static void put(final MutableDirectBuffer b, final int o, final int rkey) { Bytes.i32(b, o, rkey); }
}
