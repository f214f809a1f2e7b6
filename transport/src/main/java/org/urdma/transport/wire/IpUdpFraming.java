package org.urdma.transport.wire;

import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;

/**
 * RoCEv2 (WIRE.md §3) and PAXI Standard (§9):
 * {@code Eth [802.1Q] | IPv4 or IPv6 | UDP 4791 | BTH or RH | ... | payload | pad | [ICRC]}, padded to 60 bytes.
 * RoCEv2 writes UDP checksum 0, PAXI Standard 0xFFFF. The IPv4 header checksum is computed on encode and
 * verified on decode; the IP total length (or IPv6 payload length) bounds the packet, so Ethernet fill is ignored.
 */
final class IpUdpFraming extends AbstractFraming {
    private final boolean bth;
    private final int udpChecksum;

    IpUdpFraming(final FramingKind kind, final boolean icrcEnabled, final boolean inPlaceIcrc) {
        super(kind, kind == FramingKind.ROCE2 || icrcEnabled, inPlaceIcrc);
        this.bth = kind == FramingKind.ROCE2;
        this.udpChecksum = bth ? UdpHeader.CHECKSUM_ROCE : UdpHeader.CHECKSUM_PAXI;
    }

    @Override
    int linkAndNetworkLength(final boolean vlan) {
        // IPv6 is the larger network header; slots are sized for it
        return EthernetHeader.LENGTH + (vlan ? EthernetHeader.VLAN_TAG_LENGTH : 0) + Ipv6Header.LENGTH +
            UdpHeader.LENGTH;
    }

    @Override
    public int headerLength(final int opcode, final boolean vlan) {
        return super.headerLength(opcode, vlan) - (Ipv6Header.LENGTH - Ipv4Header.LENGTH);
    }

    @Override
    public int encode(final Packet p, final MutableDirectBuffer b, final int offset) {
        final int mask = TransportCodec.checkedMask(p, kind);
        final int end = TransportCodec.encode(p, mask, bth, b, offset + transportOffset(p));
        return wrap(p, b, offset, end);
    }

    @Override
    public int transportOffset(final Packet addr) {
        return EthernetHeader.LENGTH + (addr.vlan ? EthernetHeader.VLAN_TAG_LENGTH : 0) +
            (addr.ipv6 ? Ipv6Header.LENGTH : Ipv4Header.LENGTH) + UdpHeader.LENGTH;
    }

    @Override
    public int wrap(final Packet p, final MutableDirectBuffer b, final int offset, final int sectionEnd) {
        final int net = putEthernet(p, b, offset, p.ipv6 ? EthernetHeader.TYPE_IPV6 : EthernetHeader.TYPE_IPV4);
        final int trailer = icrcEnabled ? Icrc.LENGTH : 0;
        final int udpLen = UdpHeader.LENGTH + (sectionEnd - (offset + transportOffset(p))) + trailer;
        final int udp;
        if (p.ipv6) {
            Ipv6Header.put(b, net, p.trafficClass, p.flowLabel, udpLen, Ipv6Header.NEXT_HEADER_UDP, p.hopLimit,
                p.sgidHi, p.sgidLo, p.dgidHi, p.dgidLo);
            udp = net + Ipv6Header.LENGTH;
        } else {
            Ipv4Header.putWithChecksum(b, net, p.tos, Ipv4Header.LENGTH + udpLen, p.ipId, p.ipFlagsFragment, p.ttl,
                Ipv4Header.PROTO_UDP, p.ipSrc, p.ipDst);
            udp = net + Ipv4Header.LENGTH;
        }
        UdpHeader.put(b, udp, p.udpSrcPort, UdpHeader.ROCE_PORT, udpLen, udpChecksum);
        p.udpChecksum = udpChecksum;
        final int intLength = bth && (Bth.resv7(b, offset + transportOffset(p)) & OpcodeTable.RESV7_INT) != 0 ? IntStack.LENGTH : 0;
        return finish(p, b, offset, net, p.ipv6 ? Icrc.NET_IPV6_UDP : Icrc.NET_IPV4_UDP, bth, sectionEnd, intLength);
    }

    @Override
    DecodeStatus decodeFrame(final DirectBuffer b, final int start, final int end, final Packet out) {
        final int t = readTag(b, start, end, out);
        if (t < 0) {
            return DecodeStatus.TRUNCATED;
        }
        out.dstMac = EthernetHeader.dst(b, start);
        out.srcMac = EthernetHeader.src(b, start);
        final int type = Bytes.u16(b, t);
        final int net = t + 2;
        final int udp;
        final int udpLen;
        if (type == EthernetHeader.TYPE_IPV4) {
            if (end - net < Ipv4Header.LENGTH + UdpHeader.LENGTH) {
                return DecodeStatus.TRUNCATED;
            }
            final int vihl = Ipv4Header.versionIhl(b, net);
            if (vihl >> 4 != 4) {
                return DecodeStatus.BAD_VERSION;
            }
            if ((vihl & 0x0F) != 5 || Ipv4Header.protocol(b, net) != Ipv4Header.PROTO_UDP ||
                (Ipv4Header.flagsFragment(b, net) & 0x3FFF) != 0) {
                return DecodeStatus.BAD_IP_HEADER;
            }
            if (!Ipv4Header.checksumValid(b, net)) {
                return DecodeStatus.BAD_IP_CHECKSUM;
            }
            out.tos = Ipv4Header.tos(b, net);
            out.ttl = Ipv4Header.ttl(b, net);
            out.ipId = Ipv4Header.id(b, net);
            out.ipFlagsFragment = Ipv4Header.flagsFragment(b, net);
            out.ipSrc = Ipv4Header.src(b, net);
            out.ipDst = Ipv4Header.dst(b, net);
            final int total = Ipv4Header.totalLength(b, net);
            if (total > end - net) {
                return DecodeStatus.TRUNCATED;
            }
            udp = net + Ipv4Header.LENGTH;
            udpLen = total - Ipv4Header.LENGTH;
        } else if (type == EthernetHeader.TYPE_IPV6) {
            if (end - net < Ipv6Header.LENGTH + UdpHeader.LENGTH) {
                return DecodeStatus.TRUNCATED;
            }
            if (Ipv6Header.version(b, net) != 6) {
                return DecodeStatus.BAD_VERSION;
            }
            if (Ipv6Header.nextHeader(b, net) != Ipv6Header.NEXT_HEADER_UDP) {
                return DecodeStatus.BAD_IP_HEADER;
            }
            out.ipv6 = true;
            out.trafficClass = Ipv6Header.trafficClass(b, net);
            out.flowLabel = Ipv6Header.flowLabel(b, net);
            out.hopLimit = Ipv6Header.hopLimit(b, net);
            out.sgidHi = Ipv6Header.srcHi(b, net);
            out.sgidLo = Ipv6Header.srcLo(b, net);
            out.dgidHi = Ipv6Header.dstHi(b, net);
            out.dgidLo = Ipv6Header.dstLo(b, net);
            udp = net + Ipv6Header.LENGTH;
            udpLen = Ipv6Header.payloadLength(b, net);
            if (udpLen > end - udp) {
                return DecodeStatus.TRUNCATED;
            }
        } else {
            return DecodeStatus.WRONG_ETHERTYPE;
        }
        if (UdpHeader.dstPort(b, udp) != UdpHeader.ROCE_PORT) {
            return DecodeStatus.WRONG_UDP_PORT;
        }
        out.udpSrcPort = UdpHeader.srcPort(b, udp);
        out.udpChecksum = UdpHeader.checksum(b, udp);
        final int trailer = icrcEnabled ? Icrc.LENGTH : 0;
        if (UdpHeader.length(b, udp) != udpLen || udpLen < UdpHeader.LENGTH + trailer) {
            return DecodeStatus.LENGTH_MISMATCH;
        }
        final int th = udp + UdpHeader.LENGTH;
        final int sectionEnd = udp + udpLen - trailer;
        DecodeStatus s = TransportCodec.decodeHeaders(b, th, sectionEnd, kind, out);
        if (s != DecodeStatus.OK) {
            return s;
        }
        final int intLength = bth && (out.resv7 & OpcodeTable.RESV7_INT) != 0 ? IntStack.LENGTH : 0;
        if (sectionEnd - out.payloadOffset < intLength) {
            return DecodeStatus.TRUNCATED;
        }
        if (intLength > 0) {
            out.intOffset = sectionEnd - intLength;
            if (!out.inPlace) {
                out.intStack.putBytes(0, b, out.intOffset, intLength);
            }
        }
        s = TransportCodec.finishPayload(out, sectionEnd - intLength, true);
        if (s != DecodeStatus.OK || !icrcEnabled) {
            return s;
        }
        return icrcValid(b, net, out.ipv6 ? Icrc.NET_IPV6_UDP : Icrc.NET_IPV4_UDP, bth, sectionEnd, intLength) ?
            DecodeStatus.OK : DecodeStatus.BAD_ICRC;
    }
}
