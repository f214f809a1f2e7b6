package org.urdma.transport.wire;

import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;

/** RDMA extended transport header (16 bytes): VA (64), R_Key (32), DMA length (32). */
public final class Reth {
    public static final int LENGTH = 16;
    private Reth() {
    }

    public static long va(final DirectBuffer b, final int o) { return Bytes.i64(b, o); }
    public static int rkey(final DirectBuffer b, final int o) { return Bytes.i32(b, o + 8); }
    public static int dmaLength(final DirectBuffer b, final int o) { return Bytes.i32(b, o + 12); }

    public static void put(final MutableDirectBuffer b, final int o, final long va, final int rkey, final int dmaLength) {
        Bytes.i64(b, o, va);
        Bytes.i32(b, o + 8, rkey);
        Bytes.i32(b, o + 12, dmaLength);
    }
}
