package org.urdma.transport.wire;

import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;

/**
 * PAXI AFH_GEN1 and AFH_GEN2_16b (WIRE.md §9): {@code AFH (12) [802.1Q] 0x88B5 | RH | ... | payload | pad | [ICRC]},
 * padded with zeros to 60 bytes. The ICRC (when enabled) covers 8 x 0xFF, the RH and everything after it up to the
 * ICRC; the AFH is not covered (like the Ethernet header in RoCE).
 *
 * <p>Length rule (there is no length field on the wire): a frame longer than 60 bytes ends with the ICRC (or the
 * pad, without ICRC). A 60-byte frame may carry zero fill after the packet:
 * <ul>
 * <li>with ICRC, the decoder takes the first 4-byte aligned position after the headers where the running CRC
 *     matches the next 4 bytes and only zeros follow (a false match needs a 2^-32 coincidence);</li>
 * <li>without ICRC, an opcode without payload ends at its headers; an opcode with payload takes every whole
 *     4-byte word after its headers, so a short payload arrives zero-extended (minus PadCnt).</li>
 * </ul>
 */
final class AfhFraming extends AbstractFraming {
    private final boolean gen2;

    AfhFraming(final FramingKind kind, final boolean icrcEnabled, final boolean inPlaceIcrc) {
        super(kind, icrcEnabled, inPlaceIcrc);
        this.gen2 = kind == FramingKind.PAXI_AFH2;
    }

    @Override
    int linkAndNetworkLength(final boolean vlan) {
        return EthernetHeader.LENGTH + (vlan ? EthernetHeader.VLAN_TAG_LENGTH : 0);
    }

    @Override
    boolean offloadable() {
        return false; // a short frame's end is found by its ICRC
    }

    @Override
    public int encode(final Packet p, final MutableDirectBuffer b, final int offset) {
        final int mask = TransportCodec.checkedMask(p, kind);
        final int end = TransportCodec.encode(p, mask, false, b, offset + transportOffset(p));
        return wrap(p, b, offset, end);
    }

    @Override
    public int transportOffset(final Packet addr) {
        return AfhHeader.LENGTH + (addr.vlan ? EthernetHeader.VLAN_TAG_LENGTH : 0) + 2;
    }

    @Override
    public int wrap(final Packet p, final MutableDirectBuffer b, final int offset, final int sectionEnd) {
        if (gen2) {
            AfhHeader.putGen2(b, offset, p.dstMac, p.afhTc, p.srcXpu, p.opFlags, p.dstQpid);
        } else {
            AfhHeader.putGen1(b, offset, p.dstMac, p.afhTc, p.srcMac);
        }
        int pos = offset + 12;
        if (p.vlan) {
            pos = EthernetHeader.putVlan(b, pos, p.pcp, p.dei, p.vid);
        }
        Bytes.u16(b, pos, EthernetHeader.TYPE_PAXI_AFH);
        final int rh = pos + 2;
        return finish(p, b, offset, rh, Icrc.NET_NONE, false, sectionEnd);
    }

    @Override
    DecodeStatus decodeFrame(final DirectBuffer b, final int start, final int end, final Packet out) {
        final int t = readTag(b, start, end, out);
        if (t < 0) {
            return DecodeStatus.TRUNCATED;
        }
        out.dstMac = AfhHeader.dst(b, start);
        out.afhTc = AfhHeader.tc(b, start);
        if (gen2) {
            out.srcXpu = AfhHeader.srcXpu(b, start);
            out.opFlags = AfhHeader.opFlags(b, start);
            out.dstQpid = AfhHeader.dstQpid(b, start);
        } else {
            out.srcMac = AfhHeader.srcLow40(b, start);
        }
        if (Bytes.u16(b, t) != EthernetHeader.TYPE_PAXI_AFH) {
            return DecodeStatus.WRONG_ETHERTYPE;
        }
        final int rh = t + 2;
        final int trailer = icrcEnabled ? Icrc.LENGTH : 0;
        DecodeStatus s = TransportCodec.decodeHeaders(b, rh, end - trailer, kind, out);
        if (s != DecodeStatus.OK) {
            return s;
        }
        final int headersEnd = out.payloadOffset;
        final boolean mayHaveFill = end - start <= EthernetHeader.MIN_FRAME;
        if (!icrcEnabled) {
            int sectionEnd = end;
            if (mayHaveFill) {
                sectionEnd = OpcodeTable.has(out.opcode, OpcodeTable.PAYLOAD) ?
                    headersEnd + ((end - headersEnd) & ~3) : headersEnd + out.padCnt;
            }
            return TransportCodec.finishPayload(out, sectionEnd, !mayHaveFill);
        }
        if (!mayHaveFill) {
            final int icrcAt = end - Icrc.LENGTH;
            s = TransportCodec.finishPayload(out, icrcAt, true);
            if (s != DecodeStatus.OK) {
                return s;
            }
            return icrcValid(b, rh, Icrc.NET_NONE, false, icrcAt) ? DecodeStatus.OK : DecodeStatus.BAD_ICRC;
        }
        // short frame: find where the ICRC sits
        icrc.start(b, rh, Icrc.NET_NONE, false);
        icrc.update(b, rh, headersEnd - rh);
        for (int at = headersEnd; at + Icrc.LENGTH <= end; at += 4) {
            if (at > headersEnd) {
                icrc.update(b, at - 4, 4);
            }
            if (icrc.value() == Icrc.get(b, at) && zeros(b, at + Icrc.LENGTH, end)) {
                return TransportCodec.finishPayload(out, at, true);
            }
        }
        return DecodeStatus.BAD_ICRC;
    }

    private static boolean zeros(final DirectBuffer b, final int from, final int to) {
        for (int i = from; i < to; i++) {
            if (b.getByte(i) != 0) {
                return false;
            }
        }
        return true;
    }
}
