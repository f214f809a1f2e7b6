package org.urdma.transport.wire;

import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;

/** Atomic extended transport header (28 bytes): VA (64), R_Key (32), Swap/Add (64), Compare (64). */
public final class AtomicEth {
    public static final int LENGTH = 28;
    private AtomicEth() {
    }

    public static long va(final DirectBuffer b, final int o) { return Bytes.i64(b, o); }
    public static int rkey(final DirectBuffer b, final int o) { return Bytes.i32(b, o + 8); }
    public static long swapAdd(final DirectBuffer b, final int o) { return Bytes.i64(b, o + 12); }
    public static long compare(final DirectBuffer b, final int o) { return Bytes.i64(b, o + 20); }

    public static void put(
        final MutableDirectBuffer b, final int o, final long va, final int rkey, final long swapAdd, final long compare) {
        Bytes.i64(b, o, va);
        Bytes.i32(b, o + 8, rkey);
        Bytes.i64(b, o + 12, swapAdd);
        Bytes.i64(b, o + 20, compare);
    }
}
