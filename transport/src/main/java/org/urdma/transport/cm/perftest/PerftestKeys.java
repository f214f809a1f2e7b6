package org.urdma.transport.cm.perftest;

/**
 * perftest's key message for a GID-addressed (RoCE) connection: exactly 108 bytes,
 * {@code "%04x:%04x:%06x:%06x:%08x:%016llx:"} (lid, out_reads, qpn, psn, rkey, vaddr), then the 16 GID
 * bytes as {@code "%02x:"} each, then {@code "%08x:"} (srqn) and a NUL (perftest_communication.c,
 * {@code KEY_PRINT_FMT_GID}, written with {@code write(sockfd, msg, sizeof msg)}). The same message is
 * re-sent unchanged as the barrier around RTR, after the run and at close.
 *
 * <p>The stock tool parses leniently with strtol; we write exactly what it writes and read strictly,
 * so garbage is reported with the field and offset instead of being half-parsed.
 */
public final class PerftestKeys {

    /** Bytes of one key message, NUL included. */
    public static final int LENGTH = 108;

    private static final String MSG = "perftest key message";

    private PerftestKeys() {}

    /** The 108-byte message perftest would send for {@code dest}. */
    public static byte[] encode(PerftestDest dest) {
        byte[] m = new byte[LENGTH];
        int o = 0;
        o = field(m, o, dest.lid(), 4);
        o = field(m, o, dest.outReads(), 4);
        o = field(m, o, dest.qpn(), 6);
        o = field(m, o, dest.psn(), 6);
        o = field(m, o, dest.rkey() & 0xffffffffL, 8);
        o = field(m, o, dest.vaddr(), 16);
        byte[] gid = dest.gid();
        for (byte b : gid) {
            o = field(m, o, b & 0xff, 2);
        }
        o = field(m, o, dest.srqn() & 0xffffffffL, 8);
        m[o] = 0; // o == 107: the NUL that sizeof msg includes
        return m;
    }

    private static int field(byte[] m, int o, long v, int width) {
        o = HexFields.put(m, o, v, width);
        m[o] = ':';
        return o + 1;
    }

    /** Parses a key message; throws naming the field and offset when it is not in perftest's format. */
    public static PerftestDest decode(byte[] m) throws ExchangeFormatException {
        if (m == null || m.length != LENGTH) {
            throw new ExchangeFormatException(MSG + " must be " + LENGTH + " bytes, got "
                    + (m == null ? "none" : m.length));
        }
        int o = 0;
        int lid = (int) HexFields.get(m, o, 4, ':', "lid", MSG);
        o += 5;
        int outReads = (int) HexFields.get(m, o, 4, ':', "out_reads", MSG);
        o += 5;
        int qpn = (int) HexFields.get(m, o, 6, ':', "qpn", MSG);
        o += 7;
        int psn = (int) HexFields.get(m, o, 6, ':', "psn", MSG);
        o += 7;
        int rkey = (int) HexFields.get(m, o, 8, ':', "rkey", MSG);
        o += 9;
        long vaddr = HexFields.get(m, o, 16, ':', "vaddr", MSG);
        o += 17;
        byte[] gid = new byte[Gids.LENGTH];
        for (int i = 0; i < gid.length; i++) {
            gid[i] = (byte) HexFields.get(m, o, 2, ':', "gid[" + i + "]", MSG);
            o += 3;
        }
        int srqn = (int) HexFields.get(m, o, 8, ':', "srqn", MSG);
        o += 9;
        if (m[o] != 0) {
            throw new ExchangeFormatException(MSG + ": byte " + o + " must be the terminating NUL, found "
                    + HexFields.describe(m[o] & 0xff));
        }
        return new PerftestDest(lid, outReads, qpn, psn, rkey, vaddr, gid, srqn);
    }
}
