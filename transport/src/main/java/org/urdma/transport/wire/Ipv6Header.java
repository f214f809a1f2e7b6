package org.urdma.transport.wire;

import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;

/**
 * IPv6 header (40 bytes), which is also the layout of the InfiniBand GRH used by RoCEv1 (WIRE.md §2):
 * version 6 (4) | traffic class (8) | flow label (20) | payload length (16) | next header (8) | hop limit (8) |
 * source GID/address (128) | destination GID/address (128). 128-bit addresses are two longs (high, low).
 */
public final class Ipv6Header {
    public static final int LENGTH = 40;
    /** GRH next header value for RoCEv1 (IBA transport). */
    public static final int NEXT_HEADER_IB = 0x1B;
    public static final int NEXT_HEADER_UDP = 17;

    private Ipv6Header() {
    }

    public static int version(final DirectBuffer b, final int o) { return (b.getByte(o) >> 4) & 0x0F; }
    public static int trafficClass(final DirectBuffer b, final int o) { return (Bytes.u16(b, o) >> 4) & 0xFF; }
    public static int flowLabel(final DirectBuffer b, final int o) { return Bytes.u24(b, o + 1) & 0xF_FFFF; }
    public static int payloadLength(final DirectBuffer b, final int o) { return Bytes.u16(b, o + 4); }
    public static int nextHeader(final DirectBuffer b, final int o) { return Bytes.u8(b, o + 6); }
    public static int hopLimit(final DirectBuffer b, final int o) { return Bytes.u8(b, o + 7); }
    public static long srcHi(final DirectBuffer b, final int o) { return Bytes.i64(b, o + 8); }
    public static long srcLo(final DirectBuffer b, final int o) { return Bytes.i64(b, o + 16); }
    public static long dstHi(final DirectBuffer b, final int o) { return Bytes.i64(b, o + 24); }
    public static long dstLo(final DirectBuffer b, final int o) { return Bytes.i64(b, o + 32); }

    public static void put(
        final MutableDirectBuffer b, final int o, final int trafficClass, final int flowLabel, final int payloadLength,
        final int nextHeader, final int hopLimit, final long srcHi, final long srcLo, final long dstHi, final long dstLo) {
        Bytes.i32(b, o, 6 << 28 | (trafficClass & 0xFF) << 20 | (flowLabel & 0xF_FFFF));
        Bytes.u16(b, o + 4, payloadLength);
        Bytes.u8(b, o + 6, nextHeader);
        Bytes.u8(b, o + 7, hopLimit);
        Bytes.i64(b, o + 8, srcHi);
        Bytes.i64(b, o + 16, srcLo);
        Bytes.i64(b, o + 24, dstHi);
        Bytes.i64(b, o + 32, dstLo);
    }

    /** RoCEv1 link-local GID high half: fe80::/64. */
    public static final long LINK_LOCAL_PREFIX = 0xFE80_0000_0000_0000L;

    /** Low half of a link-local GID from a 48-bit MAC: EUI-64 with the U/L bit flipped (WIRE.md §2). */
    public static long eui64(final long mac) {
        final long hi24 = (mac >>> 24) & 0xFF_FFFF;
        final long lo24 = mac & 0xFF_FFFF;
        return ((hi24 ^ 0x02_0000L) << 40) | 0xFF_FE00_0000L | lo24;
    }

    /** Inverse of {@link #eui64}: the MAC inside a link-local GID's low half. */
    public static long macFromEui64(final long lo) {
        final long hi24 = ((lo >>> 40) & 0xFF_FFFF) ^ 0x02_0000L;
        return hi24 << 24 | (lo & 0xFF_FFFF);
    }

    /** Low half of an IPv4-mapped GID ::ffff:a.b.c.d (high half 0) (WIRE.md §3). */
    public static long ipv4MappedLo(final int ipv4) {
        return 0xFFFF_0000_0000L | (ipv4 & 0xFFFF_FFFFL);
    }
}
