package org.urdma.transport.wire;

import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;

/** UDP header (8 bytes). RoCEv2 and PAXI Standard use destination port 4791. */
public final class UdpHeader
{
    public static final int LENGTH = 8;
    public static final int ROCE_PORT = 4791;
    /** RoCEv2 sends UDP checksum 0 (WIRE.md §3). */
    public static final int CHECKSUM_ROCE = 0;
    /** PAXI Standard sends UDP checksum 0xFFFF (WIRE.md §9); this is how it is told apart from RoCEv2. */
    public static final int CHECKSUM_PAXI = 0xFFFF;

    private UdpHeader()
    {
    }

    public static int srcPort(final DirectBuffer b, final int o) { return Bytes.u16(b, o); }
    public static int dstPort(final DirectBuffer b, final int o) { return Bytes.u16(b, o + 2); }
    public static int length(final DirectBuffer b, final int o) { return Bytes.u16(b, o + 4); }
    public static int checksum(final DirectBuffer b, final int o) { return Bytes.u16(b, o + 6); }

    public static void put(
        final MutableDirectBuffer b, final int o, final int srcPort, final int dstPort, final int length,
        final int checksum)
    {
        Bytes.u16(b, o, srcPort);
        Bytes.u16(b, o + 2, dstPort);
        Bytes.u16(b, o + 4, length);
        Bytes.u16(b, o + 6, checksum);
    }

    /** Linux rxe's RoCEv2 source port for a QPN: 0xC000 + hash & 0x3FFF (any value in 0xC000..0xFFFF is valid). */
    public static int roceSourcePort(final int qpn)
    {
        int h = qpn * 0x9E37_79B1;
        h ^= h >>> 16;
        return 0xC000 | (h & 0x3FFF);
    }
}
