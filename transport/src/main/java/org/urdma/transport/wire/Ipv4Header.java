package org.urdma.transport.wire;

import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;

/** IPv4 header without options (20 bytes), with the RFC 1071 header checksum. */
public final class Ipv4Header {
    public static final int LENGTH = 20;
    public static final int PROTO_UDP = 17;
    public static final int FLAG_DF = 0x4000;
    public static final int ECN_MASK = 0x03;
    public static final int ECN_ECT0 = 0x02;
    public static final int ECN_CE = 0x03;

    private Ipv4Header() {
    }

    public static int versionIhl(final DirectBuffer b, final int o) { return Bytes.u8(b, o); }
    public static int tos(final DirectBuffer b, final int o) { return Bytes.u8(b, o + 1); }
    public static int totalLength(final DirectBuffer b, final int o) { return Bytes.u16(b, o + 2); }
    public static int id(final DirectBuffer b, final int o) { return Bytes.u16(b, o + 4); }
    /** Flags (3 bits) and fragment offset (13 bits) as one 16-bit value; DF is 0x4000. */
    public static int flagsFragment(final DirectBuffer b, final int o) { return Bytes.u16(b, o + 6); }
    public static int ttl(final DirectBuffer b, final int o) { return Bytes.u8(b, o + 8); }
    public static int protocol(final DirectBuffer b, final int o) { return Bytes.u8(b, o + 9); }
    public static int checksum(final DirectBuffer b, final int o) { return Bytes.u16(b, o + 10); }
    public static int src(final DirectBuffer b, final int o) { return Bytes.i32(b, o + 12); }
    public static int dst(final DirectBuffer b, final int o) { return Bytes.i32(b, o + 16); }

    /** Writes the header with checksum 0; call {@link #putChecksum} after. */
    public static void put(
        final MutableDirectBuffer b, final int o, final int tos, final int totalLength, final int id,
        final int flagsFragment, final int ttl, final int protocol, final int src, final int dst) {
        Bytes.u8(b, o, 0x45);
        Bytes.u8(b, o + 1, tos);
        Bytes.u16(b, o + 2, totalLength);
        Bytes.u16(b, o + 4, id);
        Bytes.u16(b, o + 6, flagsFragment);
        Bytes.u8(b, o + 8, ttl);
        Bytes.u8(b, o + 9, protocol);
        Bytes.u16(b, o + 10, 0);
        Bytes.i32(b, o + 12, src);
        Bytes.i32(b, o + 16, dst);
    }

    /** One's complement sum over the 20-byte header as stored (0 means a valid checksum is in place). */
    public static int computeChecksum(final DirectBuffer b, final int o) {
        // the one's complement sum does not depend on byte order (RFC 1071 §2B): add the 20 bytes as five little-endian
        // 32-bit words (three reads instead of ten 16-bit big-endian ones, per packet each way) and swap at the end
        final long w0 = b.getLong(o, java.nio.ByteOrder.LITTLE_ENDIAN);
        final long w1 = b.getLong(o + 8, java.nio.ByteOrder.LITTLE_ENDIAN);
        long sum = (w0 & 0xFFFFFFFFL) + (w0 >>> 32) + (w1 & 0xFFFFFFFFL) + (w1 >>> 32)
                + (b.getInt(o + 16, java.nio.ByteOrder.LITTLE_ENDIAN) & 0xFFFFFFFFL);
        sum = (sum & 0xFFFF) + (sum >>> 16);
        sum = (sum & 0xFFFF) + (sum >>> 16);
        sum = (sum & 0xFFFF) + (sum >>> 16);
        final int le = (int) ~sum & 0xFFFF;
        return ((le & 0xFF) << 8) | (le >>> 8);
    }

    /**
     * {@link #put} with its checksum, summed from the field values: reading back the bytes just stored in pieces stalls
     * (store forwarding fails for a wider load), and this runs for every RoCEv2 packet sent.
     */
    public static void putWithChecksum(
        final MutableDirectBuffer b, final int o, final int tos, final int totalLength, final int id,
        final int flagsFragment, final int ttl, final int protocol, final int src, final int dst) {
        put(b, o, tos, totalLength, id, flagsFragment, ttl, protocol, src, dst);
        int sum = (0x4500 | (tos & 0xFF)) + (totalLength & 0xFFFF) + (id & 0xFFFF) + (flagsFragment & 0xFFFF)
            + (((ttl & 0xFF) << 8) | (protocol & 0xFF)) + (src >>> 16) + (src & 0xFFFF) + (dst >>> 16) + (dst & 0xFFFF);
        sum = (sum & 0xFFFF) + (sum >>> 16);
        sum = (sum & 0xFFFF) + (sum >>> 16);
        Bytes.u16(b, o + 10, ~sum & 0xFFFF);
    }

    public static void putChecksum(final MutableDirectBuffer b, final int o) {
        Bytes.u16(b, o + 10, 0);
        Bytes.u16(b, o + 10, computeChecksum(b, o));
    }

    public static boolean checksumValid(final DirectBuffer b, final int o) {
        return computeChecksum(b, o) == 0;
    }

    /**
     * Rewrites the ECN bits and patches the checksum incrementally (RFC 1624), as a switch marking CE does.
     */
    public static void ecn(final MutableDirectBuffer b, final int o, final int ecn) {
        final int oldWord = Bytes.u16(b, o);
        final int newWord = (oldWord & ~ECN_MASK) | (ecn & ECN_MASK);
        Bytes.u16(b, o, newWord);
        int sum = (~Bytes.u16(b, o + 10) & 0xFFFF) + (~oldWord & 0xFFFF) + newWord;
        sum = (sum & 0xFFFF) + (sum >>> 16);
        sum = (sum & 0xFFFF) + (sum >>> 16);
        Bytes.u16(b, o + 10, ~sum & 0xFFFF);
    }

    /** Formats an IPv4 address held in an int (tools only; allocates). */
    public static String addressToString(final int a) {
        return ((a >>> 24) & 0xFF) + "." + ((a >>> 16) & 0xFF) + "." + ((a >>> 8) & 0xFF) + "." + (a & 0xFF);
    }
}
