package org.urdma.switchemu.frame;

import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;

import org.urdma.transport.wire.Bytes;

/** A 48-bit MAC address held in the low bits of a long (byte 0 most significant). */
public final class Mac {
    public static final long BROADCAST = 0xFFFF_FFFF_FFFFL;
    /** 01:80:C2:00:00:00 — the IEEE 802.1D reserved block 01:80:C2:00:00:0x is never forwarded. */
    public static final long RESERVED_BASE = 0x0180_C200_0000L;
    /** 01:80:C2:00:00:01 — destination of PAUSE and PFC frames. */
    public static final long MAC_CONTROL = 0x0180_C200_0001L;
    /** Masks byte 0 (the AFH_GEN1 traffic-class byte) off an address. */
    public static final long LOW40 = 0x00FF_FFFF_FFFFL;

    private Mac() {
    }

    public static long read(DirectBuffer buffer, int offset) {
        return Bytes.u48(buffer, offset);
    }

    public static void write(MutableDirectBuffer buffer, int offset, long mac) {
        Bytes.u48(buffer, offset, mac);
    }

    /** Group (multicast or broadcast) addresses have the I/G bit, bit 0 of byte 0, set. */
    public static boolean isGroup(long mac) {
        return (mac & 0x0100_0000_0000L) != 0;
    }

    /** True for 01:80:C2:00:00:00 … 01:80:C2:00:00:0F, which a bridge must not forward. */
    public static boolean isReservedLinkLocal(long mac) {
        return (mac & ~0xFL) == RESERVED_BASE;
    }

    public static long parse(String text) {
        String[] parts = text.split(":");
        if (parts.length != 6) {
            throw new IllegalArgumentException("MAC address '" + text + "' must be six hex bytes separated by ':'");
        }
        long mac = 0;
        for (String part : parts) {
            int b;
            try {
                b = Integer.parseInt(part, 16);
            } catch (NumberFormatException e) {
                b = -1;
            }
            if (part.length() != 2 || b < 0) {
                throw new IllegalArgumentException("MAC address '" + text + "' has a bad byte '" + part + "'");
            }
            mac = (mac << 8) | b;
        }
        return mac;
    }

    public static String toString(long mac) {
        StringBuilder sb = new StringBuilder(17);
        for (int i = 5; i >= 0; i--) {
            int b = (int) (mac >>> (8 * i)) & 0xFF;
            sb.append(Character.forDigit(b >> 4, 16)).append(Character.forDigit(b & 0xF, 16));
            if (i > 0) {
                sb.append(':');
            }
        }
        return sb.toString();
    }
}
