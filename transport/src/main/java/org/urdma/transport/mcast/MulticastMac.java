package org.urdma.transport.mcast;

import org.urdma.verbs.Gid;

/**
 * The Ethernet multicast MAC a RoCE multicast GID travels to, as the kernel's {@code ib_resolve_eth_dmac} works it
 * out: an IPv4-mapped group (RoCEv2's ::ffff:224.0.0.0/100) goes to 01:00:5e and the low 23 bits of the IPv4
 * address ({@code ip_eth_mc_map}), any other to 33:33 and the GID's low 32 bits ({@code ipv6_eth_mc_map}).
 */
public final class MulticastMac {
    private MulticastMac() {
    }

    /** The MAC of multicast group {@code mgid} in the low 48 bits; throws naming {@code what} when it is no group. */
    public static long of(Gid mgid, String what) {
        check(mgid, what);
        if (mgid.isIpv4Mapped()) {
            return 0x0100_5E00_0000L | ((mgid.byteAt(13) & 0x7FL) << 16) | ((mgid.byteAt(14) & 0xFFL) << 8)
                    | (mgid.byteAt(15) & 0xFFL);
        }
        long m = 0x3333L;
        for (int i = 12; i < 16; i++) m = (m << 8) | (mgid.byteAt(i) & 0xFF);
        return m;
    }

    /** The same as 6 bytes. */
    public static byte[] bytes(Gid mgid, String what) {
        long m = of(mgid, what);
        byte[] b = new byte[6];
        for (int i = 0; i < 6; i++) b[i] = (byte) (m >>> (40 - 8 * i));
        return b;
    }

    /** Throws naming {@code what} unless {@code mgid} is a multicast group's GID. */
    public static void check(Gid mgid, String what) {
        if (mgid == null) throw new IllegalArgumentException(what + ": must not be null");
        if (!mgid.isMulticast()) {
            throw new IllegalArgumentException(what + ": " + mgid + " is no multicast GID (ff00::/8 or ::ffff:224.0.0.0/100)");
        }
    }

    /** True for a group (multicast or broadcast) MAC: the I/G bit, bit 0 of the first byte. */
    public static boolean isGroup(long mac) {
        return (mac & 0x0100_0000_0000L) != 0;
    }
}
