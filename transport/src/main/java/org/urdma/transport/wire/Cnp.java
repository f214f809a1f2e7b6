package org.urdma.transport.wire;

import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;

/** RoCEv2 CNP body: 16 reserved zero bytes after the BTH (opcode 0x81, WIRE.md §7). */
public final class Cnp {
    public static final int LENGTH = 16;
    private Cnp() {
    }

    public static void put(final MutableDirectBuffer b, final int o) { b.setMemory(o, LENGTH, (byte)0); }

    /** True when the reserved bytes are zero (receivers ignore them; used by tests and tools). */
    public static boolean reservedZero(final DirectBuffer b, final int o) {
        return b.getLong(o) == 0 && b.getLong(o + 8) == 0;
    }
}
