package org.urdma.transport.wire;

import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;

/** URDMA AETH-EXT (12 bytes): T3 ACK transmit time (32) | Ts one-way delay sender to receiver (32) | PSN (24) | reserved (8). */
public final class AethExt {
    public static final int LENGTH = 12;
    private AethExt() {
    }

    public static int t3(final DirectBuffer b, final int o) { return Bytes.i32(b, o); }
    public static int ts(final DirectBuffer b, final int o) { return Bytes.i32(b, o + 4); }
    public static int psn(final DirectBuffer b, final int o) { return Bytes.u24(b, o + 8); }

    public static void put(final MutableDirectBuffer b, final int o, final int t3, final int ts, final int psn) {
        Bytes.i32(b, o, t3);
        Bytes.i32(b, o + 4, ts);
        Bytes.u24(b, o + 8, psn);
        Bytes.u8(b, o + 11, 0);
    }
}
