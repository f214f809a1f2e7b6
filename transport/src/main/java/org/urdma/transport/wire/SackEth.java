package org.urdma.transport.wire;

import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;

/** URDMA SACK-ETH: count (8) | loss (8, our use of WIRE.md §10's reserved byte: the receiver's loss rate in 1/4096, saturating at 255; docs/WAN.md) | cumulative PSN (24), then count ranges of missing PSNs, each start PSN (24) + length (8). */
public final class SackEth {
    public static final int BASE_LENGTH = 5;
    public static final int RANGE_LENGTH = 4;
    /** Most ranges one SACK-ETH may carry (bounded so the holder is preallocated and an ACK stays small). */
    public static final int MAX_RANGES = 32;
    private SackEth() {
    }

    public static int count(final DirectBuffer b, final int o) { return Bytes.u8(b, o); }
    public static int loss(final DirectBuffer b, final int o) { return Bytes.u8(b, o + 1); }
    public static int cumulativePsn(final DirectBuffer b, final int o) { return Bytes.u24(b, o + 2); }
    public static int rangeStart(final DirectBuffer b, final int o, final int i) { return Bytes.u24(b, o + 5 + 4 * i); }
    public static int rangeLength(final DirectBuffer b, final int o, final int i) { return Bytes.u8(b, o + 8 + 4 * i); }
    public static int length(final int count) { return BASE_LENGTH + RANGE_LENGTH * count; }

    public static void putBase(final MutableDirectBuffer b, final int o, final int count, final int cumulativePsn) {
        Bytes.u8(b, o, count);
        Bytes.u8(b, o + 1, 0);
        Bytes.u24(b, o + 2, cumulativePsn);
    }

    /** The receiver's loss rate in 1/4096 (0..255), in the byte WIRE.md §10 leaves reserved. */
    public static void putLoss(final MutableDirectBuffer b, final int o, final int loss) {
        Bytes.u8(b, o + 1, loss);
    }

    public static void putRange(final MutableDirectBuffer b, final int o, final int i, final int start, final int len) {
        Bytes.u24(b, o + 5 + 4 * i, start);
        Bytes.u8(b, o + 8 + 4 * i, len);
    }
}
