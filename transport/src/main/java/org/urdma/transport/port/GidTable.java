package org.urdma.transport.port;

import org.urdma.transport.wire.FramingKind;
import org.urdma.verbs.Gid;

/**
 * The port's GID table, laid out like rxe's: index 0 is the RoCEv1 link-local GID (fe80::/64 + EUI-64 of the
 * MAC), index 1 the RoCEv2 IPv4-mapped GID (::ffff:a.b.c.d) when the port has an IPv4 address.
 * Also the inverse mappings a driver needs: a link-local DGID back to the peer's MAC (RoCEv1, no ARP),
 * an IPv4-mapped DGID back to the IPv4 address to resolve by ARP (RoCEv2).
 */
public final class GidTable {
    public static final int ROCE_V1_INDEX = 0;
    public static final int ROCE_V2_INDEX = 1;
    private final Gid[] gids;

    public GidTable(PortIdentity port) {
        Gid v1 = Gid.fromMac(port.mac());
        if (port.hasIpv4()) {
            int ip = port.ipv4();
            gids = new Gid[] {v1, Gid.fromIpv4(new byte[] {(byte) (ip >>> 24), (byte) (ip >>> 16), (byte) (ip >>> 8), (byte) ip})};
        } else {
            gids = new Gid[] {v1};
        }
    }

    public int size() {
        return gids.length;
    }

    public Gid gid(int index) {
        if (index < 0 || index >= gids.length) {
            throw new IllegalArgumentException("gid index: must be 0.." + (gids.length - 1) + " on this port, was " + index);
        }
        return gids[index];
    }

    /** Index of {@code g} in the table, or -1. */
    public int indexOf(Gid g) {
        for (int i = 0; i < gids.length; i++) if (gids[i].equals(g)) return i;
        return -1;
    }

    /** The GID a framing puts in its source fields: the IPv4-mapped one for IP framings, link-local otherwise. */
    public Gid gidFor(FramingKind kind) {
        if (kind == FramingKind.ROCE2 || kind == FramingKind.PAXI_STANDARD) {
            if (gids.length < 2) {
                throw new IllegalArgumentException("ip: framing " + kind.cliName() + " needs an IPv4 address on the port (--ip A.B.C.D/NN)");
            }
            return gids[ROCE_V2_INDEX];
        }
        return gids[ROCE_V1_INDEX];
    }

    public static boolean isIpv4Mapped(Gid g) {
        for (int i = 0; i < 10; i++) if (g.byteAt(i) != 0) return false;
        return g.byteAt(10) == (byte) 0xFF && g.byteAt(11) == (byte) 0xFF;
    }

    /** The IPv4 address of an IPv4-mapped GID. */
    public static int ipv4Of(Gid g) {
        if (!isIpv4Mapped(g)) throw new IllegalArgumentException("gid: " + g + " is not IPv4-mapped (::ffff:a.b.c.d)");
        return ((g.byteAt(12) & 0xFF) << 24) | ((g.byteAt(13) & 0xFF) << 16) | ((g.byteAt(14) & 0xFF) << 8) | (g.byteAt(15) & 0xFF);
    }

    /** Whether {@code g} is a link-local GID built from a MAC by EUI-64 (fe80::/64 with ff:fe in the middle). */
    public static boolean isMacDerived(Gid g) {
        if (g.byteAt(0) != (byte) 0xFE || g.byteAt(1) != (byte) 0x80) return false;
        for (int i = 2; i < 8; i++) if (g.byteAt(i) != 0) return false;
        return g.byteAt(11) == (byte) 0xFF && g.byteAt(12) == (byte) 0xFE;
    }

    /** RoCEv1: the peer's MAC from its link-local GID (undo EUI-64: drop ff:fe, flip the U/L bit). */
    public static byte[] macOf(Gid g) {
        if (!isMacDerived(g)) throw new IllegalArgumentException("gid: " + g + " is not a MAC-derived link-local GID (fe80::xxxx:xxff:fexx:xxxx)");
        return new byte[] {(byte) (g.byteAt(8) ^ 0x02), g.byteAt(9), g.byteAt(10), g.byteAt(13), g.byteAt(14), g.byteAt(15)};
    }
}
