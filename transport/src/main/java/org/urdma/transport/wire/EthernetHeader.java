package org.urdma.transport.wire;

import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;

/** Ethernet II header with an optional 802.1Q tag (WIRE.md §1). MACs are carried as 48-bit longs. */
public final class EthernetHeader {
    public static final int LENGTH = 14;
    public static final int VLAN_TAG_LENGTH = 4;
    public static final int MIN_FRAME = 60;

    public static final int TYPE_IPV4 = 0x0800;
    public static final int TYPE_IPV6 = 0x86DD;
    public static final int TYPE_VLAN = 0x8100;
    public static final int TYPE_ROCE_V1 = 0x8915;
    public static final int TYPE_MAC_CONTROL = 0x8808;
    public static final int TYPE_PAXI_AFH = 0x88B5;

    private EthernetHeader() {
    }

    public static long dst(final DirectBuffer b, final int o) { return Bytes.u48(b, o); }
    public static long src(final DirectBuffer b, final int o) { return Bytes.u48(b, o + 6); }
    /** EtherType / TPID at byte 12. */
    public static int type(final DirectBuffer b, final int o) { return Bytes.u16(b, o + 12); }

    public static void putMacs(final MutableDirectBuffer b, final int o, final long dst, final long src) {
        Bytes.u48(b, o, dst);
        Bytes.u48(b, o + 6, src);
    }

    /** Writes TPID + TCI at {@code o}; returns {@code o + 4}. */
    public static int putVlan(final MutableDirectBuffer b, final int o, final int pcp, final boolean dei, final int vid) {
        Bytes.u16(b, o, TYPE_VLAN);
        Bytes.u16(b, o + 2, tci(pcp, dei, vid));
        return o + VLAN_TAG_LENGTH;
    }

    public static int tci(final int pcp, final boolean dei, final int vid) {
        return (pcp & 7) << 13 | (dei ? 0x1000 : 0) | (vid & 0xFFF);
    }

    public static int pcp(final int tci) { return (tci >> 13) & 7; }
    public static boolean dei(final int tci) { return (tci & 0x1000) != 0; }
    public static int vid(final int tci) { return tci & 0xFFF; }

    /** Formats a 48-bit MAC as {@code aa:bb:cc:dd:ee:ff} (tools only; allocates). */
    public static String macToString(final long mac) {
        return String.format("%02x:%02x:%02x:%02x:%02x:%02x",
            (mac >> 40) & 0xFF, (mac >> 32) & 0xFF, (mac >> 24) & 0xFF, (mac >> 16) & 0xFF, (mac >> 8) & 0xFF, mac & 0xFF);
    }

    /** Parses {@code aa:bb:cc:dd:ee:ff} (or with '-') to a 48-bit long. */
    public static long parseMac(final String text) {
        final String[] parts = text.trim().split("[:-]");
        if (parts.length != 6) {
            throw new IllegalArgumentException("mac: expected six hex bytes like 52:54:00:00:00:01, was '" + text + "'");
        }
        long mac = 0;
        for (final String p : parts) {
            final int v = Integer.parseInt(p, 16);
            if (v < 0 || v > 255) {
                throw new IllegalArgumentException("mac: byte out of range in '" + text + "'");
            }
            mac = mac << 8 | v;
        }
        return mac;
    }
}
