package org.urdma.transport.cm.perftest;

import java.nio.charset.StandardCharsets;

/**
 * perftest's version exchange: each side sends its {@code char version[16]} (NUL-padded; "6.06" for
 * the perftest 4.5-0.17 that Debian 12 ships) and refuses a peer whose {@code atof(version) < 5.70}.
 */
public final class PerftestVersion {

    /** Bytes on the wire (sizeof user_param->rem_version). */
    public static final int LENGTH = 16;
    /** The version we announce: the one of the stock tool we interoperate with. */
    public static final String CURRENT = "6.06";
    /** Oldest peer perftest 6.06 accepts (check_version_compatibility). */
    public static final double MINIMUM = 5.70;

    private PerftestVersion() {}

    public static byte[] encode(String version) {
        byte[] b = version.getBytes(StandardCharsets.US_ASCII);
        if (b.length >= LENGTH || version.indexOf('\0') >= 0) {
            throw new IllegalArgumentException("version must be 1..15 ASCII characters without NUL, got '"
                    + version + "'");
        }
        byte[] m = new byte[LENGTH];
        System.arraycopy(b, 0, m, 0, b.length);
        return m;
    }

    /** The text before the first NUL; it must be printable ASCII and NUL-terminated within 16 bytes. */
    public static String decode(byte[] m) throws ExchangeFormatException {
        if (m == null || m.length != LENGTH) {
            throw new ExchangeFormatException("perftest version must be " + LENGTH + " bytes, got "
                    + (m == null ? "none" : m.length));
        }
        int n = 0;
        while (n < LENGTH && m[n] != 0) {
            int c = m[n] & 0xff;
            if (c < 0x20 || c >= 0x7f) {
                throw new ExchangeFormatException("perftest version: byte " + n + " is "
                        + HexFields.describe(c) + ", not printable ASCII");
            }
            n++;
        }
        if (n == LENGTH) {
            throw new ExchangeFormatException("perftest version: no NUL within " + LENGTH + " bytes");
        }
        return new String(m, 0, n, StandardCharsets.US_ASCII);
    }

    /** C's atof on the version string: the leading decimal number, 0 when there is none. */
    public static double numeric(String version) {
        int i = 0;
        while (i < version.length() && Character.isWhitespace(version.charAt(i))) {
            i++;
        }
        int start = i;
        boolean dot = false;
        while (i < version.length()) {
            char c = version.charAt(i);
            if (c >= '0' && c <= '9') {
                i++;
            } else if (c == '.' && !dot) {
                dot = true;
                i++;
            } else {
                break;
            }
        }
        String num = version.substring(start, i);
        if (num.isEmpty() || num.equals(".")) {
            return 0;
        }
        return Double.parseDouble(num);
    }

    /** Whether perftest 6.06 would accept this peer ({@code atof(rem_version) < 5.70} refuses it). */
    public static boolean isCompatible(String version) {
        return numeric(version) >= MINIMUM;
    }
}
