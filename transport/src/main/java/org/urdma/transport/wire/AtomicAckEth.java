package org.urdma.transport.wire;

import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;

/** Atomic ACK extended transport header (8 bytes): original remote data (64). */
public final class AtomicAckEth {
    public static final int LENGTH = 8;
    private AtomicAckEth() {
    }

    public static long originalData(final DirectBuffer b, final int o) { return Bytes.i64(b, o); }
    public static void put(final MutableDirectBuffer b, final int o, final long data) { Bytes.i64(b, o, data); }
}
