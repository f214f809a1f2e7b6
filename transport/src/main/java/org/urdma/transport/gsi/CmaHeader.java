package org.urdma.transport.gsi;

import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;

/**
 * rdma_cm's IP header at the start of a REQ's (or SIDR_REQ's) private data (kernel cma.c {@code struct cma_hdr},
 * 36 bytes): version 0, IP version in the high nibble, the active side's IP port, then its source and destination
 * addresses, IPv4 in the last four bytes of each 16-byte field. The application's private data follows it.
 */
public final class CmaHeader {
    public static final int LENGTH = 36;
    public static final int VERSION = 0x00;

    private CmaHeader() {
    }

    public static void putIpv4(MutableDirectBuffer b, int o, int srcIp, int srcPort, int dstIp) {
        b.setMemory(o, LENGTH, (byte) 0);
        b.putByte(o, (byte) VERSION);
        b.putByte(o + 1, (byte) 0x40);
        b.putShort(o + 2, (short) srcPort, java.nio.ByteOrder.BIG_ENDIAN);
        b.putInt(o + 4 + 12, srcIp, java.nio.ByteOrder.BIG_ENDIAN);
        b.putInt(o + 20 + 12, dstIp, java.nio.ByteOrder.BIG_ENDIAN);
    }

    public static int version(DirectBuffer b, int o) {
        return b.getByte(o) & 0xFF;
    }

    public static int ipVersion(DirectBuffer b, int o) {
        return (b.getByte(o + 1) & 0xF0) >>> 4;
    }

    public static int srcPort(DirectBuffer b, int o) {
        return b.getShort(o + 2, java.nio.ByteOrder.BIG_ENDIAN) & 0xFFFF;
    }

    public static int srcIpv4(DirectBuffer b, int o) {
        return b.getInt(o + 4 + 12, java.nio.ByteOrder.BIG_ENDIAN);
    }

    public static int dstIpv4(DirectBuffer b, int o) {
        return b.getInt(o + 20 + 12, java.nio.ByteOrder.BIG_ENDIAN);
    }

    /** Whether the header is one this side understands: version 0 and IPv4 (null when it is, else why not). */
    public static String check(DirectBuffer b, int o) {
        if (version(b, o) != VERSION) return "cma_hdr version " + version(b, o) + " (expected 0)";
        if (ipVersion(b, o) != 4) return "cma_hdr IP version " + ipVersion(b, o) + " (only IPv4 is supported)";
        return null;
    }
}
