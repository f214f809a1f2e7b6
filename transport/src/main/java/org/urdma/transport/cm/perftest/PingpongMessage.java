package org.urdma.transport.cm.perftest;

import java.nio.charset.StandardCharsets;

/**
 * The ibv_*_pingpong address message: {@code sprintf(msg, "%04x:%06x:%06x:%s", lid, qpn, psn, gid)}
 * into {@code char msg[sizeof "0000:000000:000000:00000000000000000000000000000000"]} — 52 bytes, the
 * GID as 32 hex digits (gid_to_wire_gid: four {@code "%08x"} of the big-endian 32-bit words, i.e. the
 * GID bytes in order) and a NUL. The client sends it, reads the server's, then sends {@link #DONE}.
 */
public final class PingpongMessage {

    /** Bytes of one address message, NUL included. */
    public static final int LENGTH = 52;
    /** What the client sends after reading the server's message: {@code write(sockfd, "done", sizeof "done")}. */
    private static final byte[] DONE = {'d', 'o', 'n', 'e', 0};

    private static final String MSG = "pingpong address message";

    private PingpongMessage() {}

    public static byte[] done() {
        return DONE.clone();
    }

    /** True when {@code b} is exactly the 5-byte "done\0". */
    public static boolean isDone(byte[] b) {
        return java.util.Arrays.equals(b, DONE);
    }

    public static byte[] encode(PingpongDest dest) {
        byte[] m = new byte[LENGTH];
        int o = HexFields.put(m, 0, dest.lid(), 4);
        m[o++] = ':';
        o = HexFields.put(m, o, dest.qpn(), 6);
        m[o++] = ':';
        o = HexFields.put(m, o, dest.psn(), 6);
        m[o++] = ':';
        for (byte b : dest.gid()) {
            o = HexFields.put(m, o, b & 0xff, 2);
        }
        m[o] = 0; // o == 51
        return m;
    }

    public static PingpongDest decode(byte[] m) throws ExchangeFormatException {
        if (m == null || m.length != LENGTH) {
            throw new ExchangeFormatException(MSG + " must be " + LENGTH + " bytes, got "
                    + (m == null ? "none" : m.length));
        }
        int lid = (int) HexFields.get(m, 0, 4, ':', "lid", MSG);
        int qpn = (int) HexFields.get(m, 5, 6, ':', "qpn", MSG);
        int psn = (int) HexFields.get(m, 12, 6, ':', "psn", MSG);
        byte[] gid = new byte[Gids.LENGTH];
        for (int i = 0; i < gid.length; i++) {
            gid[i] = (byte) HexFields.get(m, 19 + 2 * i, 2, -1, "gid[" + i + "]", MSG);
        }
        if (m[51] != 0) {
            throw new ExchangeFormatException(MSG + ": byte 51 must be the terminating NUL, found "
                    + HexFields.describe(m[51] & 0xff));
        }
        return new PingpongDest(lid, qpn, psn, gid);
    }

    /** Text of a message up to its NUL, for logs. */
    public static String text(byte[] m) {
        int n = 0;
        while (n < m.length && m[n] != 0) {
            n++;
        }
        return new String(m, 0, n, StandardCharsets.US_ASCII);
    }
}
