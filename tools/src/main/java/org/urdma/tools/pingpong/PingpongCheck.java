package org.urdma.tools.pingpong;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * What a pingpong receiver holds after a run with -c: the sender filled its buffer with 0x7b (pp_init_ctx) and
 * set the first byte of every 4 KiB page to {@code i / page_size % sizeof(char)}, i.e. 0. Unlike the stock tool,
 * which checks only the page starts, every byte is checked.
 */
final class PingpongCheck {
    private PingpongCheck() {
    }

    static byte expected(long i) {
        return i % Pingpong.PAGE == 0 ? 0 : Pingpong.FILL;
    }

    /** Offset (from {@code base}) of the first byte of the {@code size} received that differs, or -1. */
    static long firstMismatch(MemorySegment s, long base, long size) {
        for (long i = 0; i < size; i++) {
            if (s.get(ValueLayout.JAVA_BYTE, base + i) != expected(i)) return i;
        }
        return -1;
    }
}
