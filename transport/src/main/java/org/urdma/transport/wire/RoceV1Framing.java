package org.urdma.transport.wire;

import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;

/**
 * RoCEv1 (WIRE.md §2): {@code Eth [802.1Q] 0x8915 | GRH | BTH | ... | payload | pad | ICRC}, padded to 60 bytes.
 * GRH PayLen gives the transport length, so Ethernet fill is told apart from payload.
 */
final class RoceV1Framing extends AbstractFraming {
    RoceV1Framing(final boolean inPlaceIcrc) {
        super(FramingKind.ROCE1, true, inPlaceIcrc);
    }

    @Override
    int linkAndNetworkLength(final boolean vlan) {
        return EthernetHeader.LENGTH + (vlan ? EthernetHeader.VLAN_TAG_LENGTH : 0) + Ipv6Header.LENGTH;
    }

    @Override
    public int encode(final Packet p, final MutableDirectBuffer b, final int offset) {
        final int mask = TransportCodec.checkedMask(p, kind);
        final int end = TransportCodec.encode(p, mask, true, b, offset + transportOffset(p));
        return wrap(p, b, offset, end);
    }

    @Override
    public int transportOffset(final Packet addr) {
        return EthernetHeader.LENGTH + (addr.vlan ? EthernetHeader.VLAN_TAG_LENGTH : 0) + Ipv6Header.LENGTH;
    }

    @Override
    public int wrap(final Packet p, final MutableDirectBuffer b, final int offset, final int sectionEnd) {
        final int grh = putEthernet(p, b, offset, EthernetHeader.TYPE_ROCE_V1);
        final int section = sectionEnd - (grh + Ipv6Header.LENGTH);
        Ipv6Header.put(b, grh, p.trafficClass, p.flowLabel, section + Icrc.LENGTH, Ipv6Header.NEXT_HEADER_IB,
            p.hopLimit, p.sgidHi, p.sgidLo, p.dgidHi, p.dgidLo);
        return finish(p, b, offset, grh, Icrc.NET_GRH, true, sectionEnd);
    }

    @Override
    DecodeStatus decodeFrame(final DirectBuffer b, final int start, final int end, final Packet out) {
        final int t = readTag(b, start, end, out);
        if (t < 0) {
            return DecodeStatus.TRUNCATED;
        }
        out.dstMac = EthernetHeader.dst(b, start);
        out.srcMac = EthernetHeader.src(b, start);
        if (Bytes.u16(b, t) != EthernetHeader.TYPE_ROCE_V1) {
            return DecodeStatus.WRONG_ETHERTYPE;
        }
        final int grh = t + 2;
        if (end - grh < Ipv6Header.LENGTH) {
            return DecodeStatus.TRUNCATED;
        }
        if (Ipv6Header.version(b, grh) != 6 || Ipv6Header.nextHeader(b, grh) != Ipv6Header.NEXT_HEADER_IB) {
            return DecodeStatus.BAD_VERSION;
        }
        out.trafficClass = Ipv6Header.trafficClass(b, grh);
        out.flowLabel = Ipv6Header.flowLabel(b, grh);
        out.hopLimit = Ipv6Header.hopLimit(b, grh);
        out.sgidHi = Ipv6Header.srcHi(b, grh);
        out.sgidLo = Ipv6Header.srcLo(b, grh);
        out.dgidHi = Ipv6Header.dstHi(b, grh);
        out.dgidLo = Ipv6Header.dstLo(b, grh);
        final int bth = grh + Ipv6Header.LENGTH;
        final int payLen = Ipv6Header.payloadLength(b, grh);
        if (payLen > end - bth) {
            return DecodeStatus.TRUNCATED;
        }
        if (payLen < Bth.LENGTH + Icrc.LENGTH) {
            return DecodeStatus.LENGTH_MISMATCH;
        }
        final int icrcAt = bth + payLen - Icrc.LENGTH;
        DecodeStatus s = TransportCodec.decodeHeaders(b, bth, icrcAt, kind, out);
        if (s != DecodeStatus.OK) {
            return s;
        }
        s = TransportCodec.finishPayload(out, icrcAt, true);
        if (s != DecodeStatus.OK) {
            return s;
        }
        return icrcValid(b, grh, Icrc.NET_GRH, true, icrcAt) ? DecodeStatus.OK : DecodeStatus.BAD_ICRC;
    }
}
