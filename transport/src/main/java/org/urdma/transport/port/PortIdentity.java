package org.urdma.transport.port;

import java.util.HexFormat;

/**
 * What a port owns like a NIC: its MAC and (for RoCEv2 and PAXI Standard) its IPv4 address and prefix.
 * The IP must not be one the host kernel owns on that interface, or the kernel answers UDP 4791 with ICMP.
 *
 * @param mac          6 bytes
 * @param ipv4         the address as a big-endian int, 0 when the port has none
 * @param prefixLength 0..32 (0 when there is no address)
 */
public record PortIdentity(byte[] mac, int ipv4, int prefixLength) {
    public PortIdentity {
        if (mac == null || mac.length != 6) throw new IllegalArgumentException("mac: must be 6 bytes");
        if ((mac[0] & 1) != 0) throw new IllegalArgumentException("mac: must be unicast (bit 0 of byte 0 clear), was " + macString(mac));
        if (prefixLength < 0 || prefixLength > 32) throw new IllegalArgumentException("prefixLength: must be 0..32, was " + prefixLength);
        mac = mac.clone();
    }

    /** A port with a MAC only (RoCEv1, PAXI AFH). */
    public static PortIdentity ofMac(byte[] mac) {
        return new PortIdentity(mac, 0, 0);
    }

    /** Parses "A.B.C.D/NN" (or "A.B.C.D", meaning /32) for the port with {@code mac}. */
    public static PortIdentity of(byte[] mac, String cidr) {
        if (cidr == null) return ofMac(mac);
        int slash = cidr.indexOf('/');
        int prefix = 32;
        String addr = cidr;
        if (slash >= 0) {
            addr = cidr.substring(0, slash);
            try {
                prefix = Integer.parseInt(cidr.substring(slash + 1));
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("ip: prefix length of '" + cidr + "' must be a number 0..32");
            }
        }
        return new PortIdentity(mac, parseIpv4(addr), prefix);
    }

    public boolean hasIpv4() {
        return ipv4 != 0;
    }

    @Override
    public byte[] mac() {
        return mac.clone();
    }

    /** The MAC as the low 48 bits of a long. */
    public long macLong() {
        return macToLong(mac);
    }

    /** Whether {@code ip} is on this port's subnet (so it is resolved by ARP rather than via a gateway). */
    public boolean onLink(int ip) {
        if (!hasIpv4()) return false;
        int mask = prefixLength == 0 ? 0 : -1 << (32 - prefixLength);
        return (ip & mask) == (ipv4 & mask);
    }

    public static int parseIpv4(String s) {
        String[] p = s.trim().split("\\.");
        if (p.length != 4) throw new IllegalArgumentException("ip: '" + s + "' is not a dotted IPv4 address");
        int v = 0;
        for (String q : p) {
            int b;
            try {
                b = Integer.parseInt(q);
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("ip: '" + s + "' is not a dotted IPv4 address");
            }
            if (b < 0 || b > 255) throw new IllegalArgumentException("ip: each part of '" + s + "' must be 0..255");
            v = (v << 8) | b;
        }
        return v;
    }

    public static String ipv4String(int ip) {
        return (ip >>> 24) + "." + ((ip >>> 16) & 0xFF) + "." + ((ip >>> 8) & 0xFF) + "." + (ip & 0xFF);
    }

    public static long macToLong(byte[] m) {
        long v = 0;
        for (int i = 0; i < 6; i++) v = (v << 8) | (m[i] & 0xFF);
        return v;
    }

    public static byte[] macToBytes(long v) {
        byte[] m = new byte[6];
        for (int i = 5; i >= 0; i--) {
            m[i] = (byte) v;
            v >>>= 8;
        }
        return m;
    }

    public static String macString(byte[] m) {
        return HexFormat.ofDelimiter(":").formatHex(m);
    }

    public static byte[] parseMac(String s) {
        byte[] m;
        try {
            m = HexFormat.ofDelimiter(":").parseHex(s.trim());
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("mac: '" + s + "' is not aa:bb:cc:dd:ee:ff");
        }
        if (m.length != 6) throw new IllegalArgumentException("mac: '" + s + "' is not aa:bb:cc:dd:ee:ff");
        return m;
    }

    @Override
    public String toString() {
        return "PortIdentity[" + macString(mac) + (hasIpv4() ? ", " + ipv4String(ipv4) + "/" + prefixLength : "") + "]";
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof PortIdentity p && java.util.Arrays.equals(mac, p.mac) && ipv4 == p.ipv4 && prefixLength == p.prefixLength;
    }

    @Override
    public int hashCode() {
        return java.util.Arrays.hashCode(mac) * 31 + ipv4 * 7 + prefixLength;
    }
}
