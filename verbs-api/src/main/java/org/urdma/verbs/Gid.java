package org.urdma.verbs;

import java.util.Arrays;
import java.util.HexFormat;

/** A 128-bit global identifier (an IPv6 address; RoCEv1 link-local EUI-64, RoCEv2 IPv4-mapped). Immutable. */
public final class Gid {
    private final byte[] raw;

    private Gid(byte[] raw) {
        this.raw = raw;
    }

    public static Gid of(byte[] bytes) {
        if (bytes == null || bytes.length != 16) {
            throw new IllegalArgumentException("gid: must be 16 bytes, was " + (bytes == null ? "null" : bytes.length));
        }
        return new Gid(bytes.clone());
    }

    /** RoCEv1 GID: fe80::/64 + EUI-64 of a MAC (flip U/L bit, insert ff:fe). */
    public static Gid fromMac(byte[] mac) {
        if (mac == null || mac.length != 6) throw new IllegalArgumentException("mac: must be 6 bytes");
        byte[] g = new byte[16];
        g[0] = (byte) 0xfe; g[1] = (byte) 0x80;
        g[8] = (byte) (mac[0] ^ 0x02); g[9] = mac[1]; g[10] = mac[2];
        g[11] = (byte) 0xff; g[12] = (byte) 0xfe;
        g[13] = mac[3]; g[14] = mac[4]; g[15] = mac[5];
        return new Gid(g);
    }

    /** RoCEv2 GID: IPv4-mapped IPv6 ::ffff:a.b.c.d. */
    public static Gid fromIpv4(byte[] ipv4) {
        if (ipv4 == null || ipv4.length != 4) throw new IllegalArgumentException("ipv4: must be 4 bytes");
        byte[] g = new byte[16];
        g[10] = (byte) 0xff; g[11] = (byte) 0xff;
        System.arraycopy(ipv4, 0, g, 12, 4);
        return new Gid(g);
    }

    /**
     * A multicast group's GID, as the kernel's {@code rdma_is_multicast_addr} tells one: an IPv6 multicast address
     * (ff00::/8), or an IPv4-mapped one (::ffff:a.b.c.d) of an IPv4 multicast address (224.0.0.0/4).
     */
    public boolean isMulticast() {
        if (raw[0] == (byte) 0xff) return true;
        return isIpv4Mapped() && (raw[12] & 0xF0) == 0xE0;
    }

    /** An IPv4-mapped GID (::ffff:a.b.c.d), the form RoCEv2 gives an IPv4 address. */
    public boolean isIpv4Mapped() {
        for (int i = 0; i < 10; i++) {
            if (raw[i] != 0) return false;
        }
        return raw[10] == (byte) 0xff && raw[11] == (byte) 0xff;
    }

    public byte[] toBytes() {
        return raw.clone();
    }

    public byte byteAt(int i) {
        return raw[i];
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Gid g && Arrays.equals(raw, g.raw);
    }

    @Override
    public int hashCode() {
        return Arrays.hashCode(raw);
    }

    @Override
    public String toString() {
        String h = HexFormat.of().formatHex(raw);
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < 32; i += 4) {
            if (i > 0) sb.append(':');
            sb.append(h, i, i + 4);
        }
        return sb.toString();
    }
}
