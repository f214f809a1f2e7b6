package org.urdma.switchemu.frame;

import org.agrona.DirectBuffer;

import java.nio.ByteOrder;

/**
 * The fields a switch looks at, read once per frame (reusable flyweight, no allocation). Only what
 * forwarding, classification and ECN need: DA, SA, an optional 802.1Q tag, the EtherType and, for
 * IPv4, the TOS byte. The general wire codecs live in the transport module.
 */
public final class FrameView {
    public static final int ETH_HEADER = 14;
    public static final int TPID_VLAN = 0x8100;
    public static final int ETHERTYPE_IPV4 = 0x0800;
    public static final int ETHERTYPE_ARP = 0x0806;
    public static final int ETHERTYPE_MAC_CONTROL = 0x8808;
    public static final int ETHERTYPE_AFH = 0x88B5;
    /** ECN codepoints (low two bits of the IPv4 TOS byte). */
    public static final int ECN_NOT_ECT = 0b00;
    public static final int ECN_CE = 0b11;
    // CE rewriting with the checksum patch is Ipv4Header.ecn in the transport wire codecs

    private DirectBuffer buffer;
    private int offset;
    private int length;
    private boolean lite;
    private boolean vlan;
    private int pcp;
    private int etherType;
    private int payloadOffset;
    private int ipv4Offset;

    /**
     * Parses a frame. Returns false for a malformed frame (too short for what its headers announce);
     * IPv4 details that do not validate simply leave the frame "not IPv4" for classification and ECN.
     */
    public boolean wrap(DirectBuffer buffer, int offset, int length, PortFormat format) {
        this.buffer = buffer;
        this.offset = offset;
        this.length = length;
        this.vlan = false;
        this.pcp = 0;
        this.ipv4Offset = -1;
        this.lite = format == PortFormat.AFH_LITE;
        if (length < ETH_HEADER - (lite ? 2 : 0)) {
            return false;
        }
        if (lite) {
            etherType = -1;
            payloadOffset = 12;
            return true;
        }
        int type = buffer.getShort(offset + 12, ByteOrder.BIG_ENDIAN) & 0xFFFF;
        int next = ETH_HEADER;
        if (type == TPID_VLAN) {
            if (length < ETH_HEADER + 4) {
                return false;
            }
            vlan = true;
            pcp = (buffer.getByte(offset + 14) & 0xFF) >>> 5;
            type = buffer.getShort(offset + 16, ByteOrder.BIG_ENDIAN) & 0xFFFF;
            next += 4;
        }
        etherType = type;
        payloadOffset = next;
        if (type == ETHERTYPE_IPV4 && length >= next + 20) {
            int vihl = buffer.getByte(offset + next) & 0xFF;
            if ((vihl >>> 4) == 4 && (vihl & 0xF) >= 5 && length >= next + (vihl & 0xF) * 4) {
                ipv4Offset = next;
            }
        }
        return true;
    }

    public long destination() {
        return Mac.read(buffer, offset);
    }

    /** The 48 bits after the DA; for AFH formats this is TC + source id, not a MAC. */
    public long source() {
        return Mac.read(buffer, offset + 6);
    }

    public boolean isLite() {
        return lite;
    }

    public boolean hasVlan() {
        return vlan;
    }

    public int pcp() {
        return pcp;
    }

    /** The EtherType after any VLAN tag, or -1 for AFH_Lite. */
    public int etherType() {
        return etherType;
    }

    /** Offset, relative to the frame start, of the first byte after the EtherType. */
    public int payloadOffset() {
        return payloadOffset;
    }

    public boolean isIpv4() {
        return ipv4Offset >= 0;
    }

    /** Offset of the IPv4 header relative to the frame start, or -1. */
    public int ipv4Offset() {
        return ipv4Offset;
    }

    public int dscp() {
        return ipv4Offset < 0 ? -1 : (buffer.getByte(offset + ipv4Offset + 1) & 0xFF) >>> 2;
    }

    public int ecn() {
        return ipv4Offset < 0 ? -1 : buffer.getByte(offset + ipv4Offset + 1) & 0x3;
    }

    public int length() {
        return length;
    }

    /** ECT(0) or ECT(1): the endpoint accepts a CE mark instead of a drop. */
    public static boolean isEct(int ecn) {
        return ecn == 0b01 || ecn == 0b10;
    }
}
