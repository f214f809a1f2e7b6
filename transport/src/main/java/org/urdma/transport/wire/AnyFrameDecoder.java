package org.urdma.transport.wire;

import java.util.EnumMap;

import org.agrona.DirectBuffer;

/**
 * Classifies raw Ethernet frames and decodes the transport ones with the right {@link Framing}. Used by
 * {@code urdma wire decode}, switches and links that see mixed traffic. One instance per thread.
 *
 * <p>Rules:
 * <ul>
 * <li>EtherType 0x8808 with opcode 0x0101 is PFC, 0x0001 PAUSE (parse with {@link MacControlFrame}).</li>
 * <li>0x8915 is RoCEv1.</li>
 * <li>IPv4/IPv6 with UDP destination port 4791: UDP checksum 0xFFFF is PAXI Standard (WIRE.md §9), anything else
 *     RoCEv2 (which sends 0; other stacks may compute a real checksum over IPv6).</li>
 * <li>0x88B5 is AFH1 or AFH2; the wire has no distinguishing bit, so the caller's hint wins. With hint
 *     {@code null} (auto) the heuristic is: AFH2 when its DST_QPID field (bytes 10-11) equals the low 16 bits of the
 *     RH DestQP (the encoder of this project sets it so by convention), else AFH1.</li>
 * <li>AFH_Lite has no EtherType; it is chosen only when the caller says so ({@code liteHint}), in which case every
 *     frame that is not MAC control is decoded as LITE.</li>
 * </ul>
 */
public final class AnyFrameDecoder {
    private final FramingKind afhHint;
    private final boolean liteHint;
    private final EnumMap<FramingKind, Framing> framings = new EnumMap<>(FramingKind.class);
    private final DecodeCounters counters = new DecodeCounters();

    /** Auto mode: AFH1/AFH2 by heuristic, no LITE, PAXI ICRC on. */
    public AnyFrameDecoder() {
        this(null, false, true);
    }

    /**
     * @param afhHint  {@link FramingKind#PAXI_AFH1}, {@link FramingKind#PAXI_AFH2} or null for the heuristic.
     * @param liteHint true when the link carries PAXI AFH_Lite frames.
     * @param paxiIcrc whether PAXI frames carry an ICRC.
     */
    public AnyFrameDecoder(final FramingKind afhHint, final boolean liteHint, final boolean paxiIcrc) {
        if (afhHint != null && afhHint != FramingKind.PAXI_AFH1 && afhHint != FramingKind.PAXI_AFH2) {
            throw new IllegalArgumentException("afhHint: must be paxi-afh1, paxi-afh2 or null, was " + afhHint);
        }
        this.afhHint = afhHint;
        this.liteHint = liteHint;
        for (final FramingKind k : FramingKind.values()) {
            framings.put(k, Framings.of(k, paxiIcrc));
        }
    }

    /** Classifies {@code b[offset, offset + length)} without decoding it. Never throws for any content. */
    public FrameClass classify(final DirectBuffer b, final int offset, final int length) {
        if (length < EthernetHeader.LENGTH || offset < 0 || (long)offset + length > b.capacity()) {
            return FrameClass.RUNT;
        }
        int t = offset + 12;
        int type = Bytes.u16(b, t);
        if (type == EthernetHeader.TYPE_MAC_CONTROL) {
            if (MacControlFrame.isPfc(b, offset, length)) {
                return FrameClass.PFC;
            }
            return MacControlFrame.isPause(b, offset, length) ? FrameClass.PAUSE : FrameClass.OTHER;
        }
        if (liteHint) {
            return FrameClass.PAXI_LITE;
        }
        if (type == EthernetHeader.TYPE_VLAN) {
            if (length < EthernetHeader.LENGTH + EthernetHeader.VLAN_TAG_LENGTH) {
                return FrameClass.OTHER;
            }
            t += EthernetHeader.VLAN_TAG_LENGTH;
            type = Bytes.u16(b, t);
        }
        final int end = offset + length;
        switch (type) {
            case EthernetHeader.TYPE_ROCE_V1:
                return FrameClass.ROCE1;
            case EthernetHeader.TYPE_IPV4: {
                final int ip = t + 2;
                if (end - ip < Ipv4Header.LENGTH + UdpHeader.LENGTH || Ipv4Header.protocol(b, ip) != Ipv4Header.PROTO_UDP) {
                    return FrameClass.OTHER;
                }
                return udpClass(b, ip + ((Bytes.u8(b, ip) & 0x0F) << 2), end);
            }
            case EthernetHeader.TYPE_IPV6: {
                final int ip = t + 2;
                if (end - ip < Ipv6Header.LENGTH + UdpHeader.LENGTH ||
                    Ipv6Header.nextHeader(b, ip) != Ipv6Header.NEXT_HEADER_UDP) {
                    return FrameClass.OTHER;
                }
                return udpClass(b, ip + Ipv6Header.LENGTH, end);
            }
            case EthernetHeader.TYPE_PAXI_AFH: {
                if (afhHint != null) {
                    return afhHint == FramingKind.PAXI_AFH1 ? FrameClass.PAXI_AFH1 : FrameClass.PAXI_AFH2;
                }
                final int rh = t + 2;
                if (end - rh < Rh.LENGTH) {
                    return FrameClass.PAXI_AFH1;
                }
                return AfhHeader.dstQpid(b, offset) == (Rh.destQp(b, rh) & 0xFFFF) ?
                    FrameClass.PAXI_AFH2 : FrameClass.PAXI_AFH1;
            }
            default:
                return FrameClass.OTHER;
        }
    }

    private static FrameClass udpClass(final DirectBuffer b, final int udp, final int end) {
        if (end - udp < UdpHeader.LENGTH || UdpHeader.dstPort(b, udp) != UdpHeader.ROCE_PORT) {
            return FrameClass.OTHER;
        }
        return UdpHeader.checksum(b, udp) == UdpHeader.CHECKSUM_PAXI ? FrameClass.PAXI_STANDARD : FrameClass.ROCE2;
    }

    /**
     * Classifies and decodes a transport frame into {@code out}. MAC control and other frames yield
     * {@link DecodeStatus#UNKNOWN_FORMAT} (check {@link #classify} first to handle PFC/PAUSE).
     */
    public DecodeStatus decode(final DirectBuffer b, final int offset, final int length, final Packet out) {
        final FrameClass c = classify(b, offset, length);
        final FramingKind k = c.framing();
        if (k == null) {
            out.reset();
            return counters.record(c == FrameClass.RUNT ? DecodeStatus.TRUNCATED : DecodeStatus.UNKNOWN_FORMAT);
        }
        return counters.record(framings.get(k).decode(b, offset, length, out));
    }

    /** The framing instance used for {@code kind} (shares this decoder's ICRC state and per-framing counters). */
    public Framing framing(final FramingKind kind) {
        return framings.get(kind);
    }

    /** Totals over every frame passed to {@link #decode}. */
    public DecodeCounters counters() {
        return counters;
    }
}
