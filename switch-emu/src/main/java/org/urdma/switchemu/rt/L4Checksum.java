package org.urdma.switchemu.rt;

import org.agrona.MutableDirectBuffer;

import java.nio.ByteOrder;

/**
 * Completes the TCP/UDP checksum of an IPv4 frame that a local kernel handed over with checksum
 * offload pending (TP_STATUS_CSUMNOTREADY on veth): a real NIC would have filled it in before the wire,
 * so the switch does, or the receiving host drops the segment as corrupt.
 */
final class L4Checksum {
    private L4Checksum() {
    }

    /** Returns true if it rewrote a checksum. Anything but unfragmented IPv4 TCP/UDP is left alone. */
    static boolean complete(MutableDirectBuffer b, int offset, int length) {
        int ip = offset + 14;
        int type = b.getShort(offset + 12, ByteOrder.BIG_ENDIAN) & 0xFFFF;
        if (type == 0x8100 && length >= 18) {
            type = b.getShort(offset + 16, ByteOrder.BIG_ENDIAN) & 0xFFFF;
            ip += 4;
        }
        int end = offset + length;
        if (type != 0x0800 || end - ip < 20) {
            return false;
        }
        int vihl = b.getByte(ip) & 0xFF;
        int ihl = (vihl & 0xF) * 4;
        int total = b.getShort(ip + 2, ByteOrder.BIG_ENDIAN) & 0xFFFF;
        int fragment = b.getShort(ip + 6, ByteOrder.BIG_ENDIAN) & 0x3FFF;
        int protocol = b.getByte(ip + 9) & 0xFF;
        if ((vihl >>> 4) != 4 || ihl < 20 || total < ihl || ip + total > end || fragment != 0) {
            return false;
        }
        int field;
        if (protocol == 17) {
            field = 6;
        } else if (protocol == 6) {
            field = 16;
        } else {
            return false;
        }
        int l4 = ip + ihl;
        int l4Length = total - ihl;
        if (l4Length < field + 2) {
            return false;
        }
        b.putShort(l4 + field, (short) 0, ByteOrder.BIG_ENDIAN);
        long sum = 0;
        for (int i = 12; i < 20; i += 2) {
            sum += b.getShort(ip + i, ByteOrder.BIG_ENDIAN) & 0xFFFF;
        }
        sum += protocol + l4Length;
        int i = 0;
        for (; i + 1 < l4Length; i += 2) {
            sum += b.getShort(l4 + i, ByteOrder.BIG_ENDIAN) & 0xFFFF;
        }
        if (i < l4Length) {
            sum += (b.getByte(l4 + i) & 0xFF) << 8;
        }
        while ((sum >>> 16) != 0) {
            sum = (sum & 0xFFFF) + (sum >>> 16);
        }
        int checksum = (int) (~sum & 0xFFFF);
        if (checksum == 0 && protocol == 17) {
            checksum = 0xFFFF;
        }
        b.putShort(l4 + field, (short) checksum, ByteOrder.BIG_ENDIAN);
        return true;
    }
}
