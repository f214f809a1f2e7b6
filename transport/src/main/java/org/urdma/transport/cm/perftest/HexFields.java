package org.urdma.transport.cm.perftest;

import java.nio.charset.StandardCharsets;

/** Fixed-width lower-case hex fields as printf("%0Nx") writes them, and a strict reader for them. */
final class HexFields {

    private static final byte[] DIGITS = "0123456789abcdef".getBytes(StandardCharsets.US_ASCII);

    private HexFields() {}

    /** Writes {@code value} as exactly {@code width} hex digits at {@code offset}; returns the next offset. */
    static int put(byte[] dst, int offset, long value, int width) {
        for (int i = width - 1; i >= 0; i--) {
            dst[offset + i] = DIGITS[(int) (value & 0xf)];
            value >>>= 4;
        }
        return offset + width;
    }

    /**
     * Reads exactly {@code width} hex digits (either case) at {@code offset}, followed by {@code sep}
     * (or no check when {@code sep} is negative).
     */
    static long get(byte[] src, int offset, int width, int sep, String what, String message)
            throws ExchangeFormatException {
        long v = 0;
        for (int i = 0; i < width; i++) {
            int c = src[offset + i] & 0xff;
            int d = Character.digit(c, 16);
            if (d < 0) {
                throw new ExchangeFormatException(message + ": field " + what + " at offset " + (offset + i)
                        + " has " + describe(c) + " where a hex digit belongs (" + width + " hex digits expected)");
            }
            v = (v << 4) | d;
        }
        if (sep >= 0 && (src[offset + width] & 0xff) != sep) {
            throw new ExchangeFormatException(message + ": field " + what + " must end with '" + (char) sep
                    + "' at offset " + (offset + width) + ", found " + describe(src[offset + width] & 0xff));
        }
        return v;
    }

    static String describe(int c) {
        if (c >= 0x20 && c < 0x7f) {
            return "'" + (char) c + "'";
        }
        return String.format("byte 0x%02x", c);
    }
}
