package org.urdma.transport.engine;

/** IBTA timer codes: the RNR NAK timer table and the local ACK timeout. */
public final class Timing {
    /** RNR timer code → microseconds (IBTA table 45; code 0 is the longest). */
    private static final long[] RNR_MICROS = {
        655360, 10, 20, 30, 40, 60, 80, 120, 160, 240, 320, 480, 640, 960, 1280, 1920, 2560, 3840, 5120, 7680,
        10240, 15360, 20480, 30720, 40960, 61440, 81920, 122880, 163840, 245760, 327680, 491520
    };

    private Timing() {}

    public static long rnrNanos(int code) {
        return RNR_MICROS[code & 31] * 1000L;
    }

    /** Local ACK timeout 4.096 µs × 2^code; 0 means infinite, returned as {@link Long#MAX_VALUE}. */
    public static long ackTimeoutNanos(int code) {
        return code == 0 ? Long.MAX_VALUE : 4096L << code;
    }
}
