package org.urdma.transport.wire;

import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;

/** UDP header (8 bytes). RoCEv2 and PAXI Standard use destination port 4791. */
public final class UdpHeader {
    public static final int LENGTH = 8;
    public static final int ROCE_PORT = 4791;
    /** RoCEv2 sends UDP checksum 0 (WIRE.md §3). */
    public static final int CHECKSUM_ROCE = 0;
    /** PAXI Standard sends UDP checksum 0xFFFF (WIRE.md §9); this is how it is told apart from RoCEv2. */
    public static final int CHECKSUM_PAXI = 0xFFFF;

    private UdpHeader() {
    }

    public static int srcPort(final DirectBuffer b, final int o) { return Bytes.u16(b, o); }
    public static int dstPort(final DirectBuffer b, final int o) { return Bytes.u16(b, o + 2); }
    public static int length(final DirectBuffer b, final int o) { return Bytes.u16(b, o + 4); }
    public static int checksum(final DirectBuffer b, final int o) { return Bytes.u16(b, o + 6); }

    public static void put(
        final MutableDirectBuffer b, final int o, final int srcPort, final int dstPort, final int length,
        final int checksum) {
        Bytes.u16(b, o, srcPort);
        Bytes.u16(b, o + 2, dstPort);
        Bytes.u16(b, o + 4, length);
        Bytes.u16(b, o + 6, checksum);
    }

    /**
     * Linux's RoCEv2 source port for a connected QP ({@code rdma_get_udp_sport}): the flow label, or when it is 0
     * one computed from the two QPNs ({@code rdma_calc_flow_label}), folded into 0xC000..0xFFFF. rxe uses it for
     * RC/UC once the address vector is set, which is what the reference vectors show (QPN 0x11 to 0x11 gives
     * 0xC121).
     */
    public static int roceSourcePort(final int localQpn, final int remoteQpn, final int flowLabel) {
        int fl = flowLabel & 0xF_FFFF;
        if (fl == 0) {
            long v = (localQpn & 0xFFFF_FFFFL) * (remoteQpn & 0xFFFF_FFFFL);
            v ^= v >>> 20;
            v ^= v >>> 40;
            fl = (int)(v & 0xF_FFFF);
        }
        int low = fl & 0x3FFF;
        low ^= (fl & 0xF_C000) >>> 14;
        return 0xC000 | low;
    }

    /** Source port for a QP without a peer (UD): rxe's {@code 0xC000 + hash_32(qpn, 14)}. */
    public static int roceSourcePort(final int qpn) {
        return 0xC000 | ((qpn * 0x61C8_8647) >>> 18);
    }
}
