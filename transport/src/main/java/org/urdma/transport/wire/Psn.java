package org.urdma.transport.wire;

/** 24-bit packet sequence number arithmetic (modulo 2^24). */
public final class Psn {
    public static final int MASK = 0xFFFFFF;

    private Psn() {}

    public static int add(int psn, int n) {
        return (psn + n) & MASK;
    }

    /** Signed distance a - b in the 24-bit circle, in (-2^23, 2^23]. */
    public static int diff(int a, int b) {
        return ((a - b) << 8) >> 8;
    }

    /** a is after b. */
    public static boolean after(int a, int b) {
        return diff(a, b) > 0;
    }

    public static boolean before(int a, int b) {
        return diff(a, b) < 0;
    }

    /** b <= a (a is b or after it). */
    public static boolean atOrAfter(int a, int b) {
        return diff(a, b) >= 0;
    }
}
