package org.urdma.transport.wire;

import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;

/**
 * PAXI AFH_Lite (WIRE.md §9): {@code AFH2 (12) [802.1Q] | payload}, with no EtherType, RH or ICRC.
 *
 * <p>Rules this project fixes, since the wire carries neither opcode nor length:
 * <ul>
 * <li>Only {@link Opcode#UC_SEND_ONLY} can be encoded; every LITE frame decodes as UC_SEND_ONLY with
 *     {@code destQp = dstQpid} (the AFH2 DST_QPID), PSN 0, and {@code vc = (afhTc >> 2) & 7} (the VC rides in TC).</li>
 * <li>The payload is every byte after the AFH2 (and tag). Frames are padded with zeros to 60 bytes, so a payload
 *     shorter than 48 bytes (44 when tagged) arrives zero-extended to that length; LITE users that need exact
 *     lengths carry them in their payload.</li>
 * <li>The RCLINK AFH spec (seeds/004) says AFH_Lite has no VLAN; the optional tag here is a project extension so
 *     every framing can be tagged. It is recognised by TPID 0x8100 at byte 12, so the encoder refuses an untagged
 *     payload that starts with 0x81 0x00. Untagged LITE frames are exactly the spec's.</li>
 * </ul>
 */
final class LiteFraming extends AbstractFraming {
    LiteFraming() {
        super(FramingKind.PAXI_LITE, false, false);
    }

    @Override
    int linkAndNetworkLength(final boolean vlan) {
        return AfhHeader.LENGTH + (vlan ? EthernetHeader.VLAN_TAG_LENGTH : 0);
    }

    @Override
    public int headerLength(final int opcode, final boolean vlan) {
        return linkAndNetworkLength(vlan);
    }

    @Override
    public int trailerMaxLength() {
        return 0;
    }

    @Override
    public int maxFrameLength(final int payload) {
        return Math.max(EthernetHeader.MIN_FRAME, linkAndNetworkLength(true) + payload);
    }

    @Override
    public int transportOffset(final Packet addr) {
        throw new UnsupportedOperationException("framing: paxi-lite has no RH, so no transport section to build in place");
    }

    @Override
    public int wrap(final Packet addr, final MutableDirectBuffer dst, final int offset, final int sectionEnd) {
        throw new UnsupportedOperationException("framing: paxi-lite has no RH, so no transport section to build in place");
    }

    @Override
    public int encode(final Packet p, final MutableDirectBuffer b, final int offset) {
        if (p.opcode != Opcode.UC_SEND_ONLY) {
            throw new IllegalArgumentException("opcode: paxi-lite carries only UC_SEND_ONLY, was " +
                Opcode.name(p.opcode & 0xFF));
        }
        if (p.payloadLength < 0 || (p.payloadLength > 0 && p.payloadBuffer == null)) {
            throw new IllegalArgumentException("payload: length " + p.payloadLength + " without a buffer");
        }
        if (!p.vlan && p.payloadLength >= 2 &&
            Bytes.u16(p.payloadBuffer, p.payloadOffset) == EthernetHeader.TYPE_VLAN) {
            throw new IllegalArgumentException("payload: an untagged paxi-lite payload must not start with 0x8100");
        }
        TransportCodec.checkRanges(p, 0, kind);
        AfhHeader.putGen2(b, offset, p.dstMac, p.afhTc, p.srcXpu, p.opFlags, p.dstQpid);
        int pos = offset + AfhHeader.LENGTH;
        if (p.vlan) {
            pos = EthernetHeader.putVlan(b, pos, p.pcp, p.dei, p.vid);
        }
        if (p.payloadLength > 0) {
            b.putBytes(pos, p.payloadBuffer, p.payloadOffset, p.payloadLength);
        }
        p.padCnt = 0;
        p.headerMask = 0;
        final int len = fill(b, offset, pos + p.payloadLength);
        p.frameLength = len;
        return len;
    }

    @Override
    DecodeStatus decodeFrame(final DirectBuffer b, final int start, final int end, final Packet out) {
        if (end - start < AfhHeader.LENGTH) {
            return DecodeStatus.TRUNCATED;
        }
        out.dstMac = AfhHeader.dst(b, start);
        out.afhTc = AfhHeader.tc(b, start);
        out.srcXpu = AfhHeader.srcXpu(b, start);
        out.opFlags = AfhHeader.opFlags(b, start);
        out.dstQpid = AfhHeader.dstQpid(b, start);
        int pos = start + AfhHeader.LENGTH;
        if (end - pos >= EthernetHeader.VLAN_TAG_LENGTH && Bytes.u16(b, pos) == EthernetHeader.TYPE_VLAN) {
            final int tci = Bytes.u16(b, pos + 2);
            out.vlan = true;
            out.pcp = EthernetHeader.pcp(tci);
            out.dei = EthernetHeader.dei(tci);
            out.vid = EthernetHeader.vid(tci);
            pos += EthernetHeader.VLAN_TAG_LENGTH;
        }
        out.opcode = Opcode.UC_SEND_ONLY;
        out.destQp = out.dstQpid;
        out.vc = (out.afhTc >> 2) & 7;
        out.transportOffset = pos;
        out.payloadBuffer = b;
        out.payloadOffset = pos;
        out.payloadLength = end - pos;
        return DecodeStatus.OK;
    }
}
