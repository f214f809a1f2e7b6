package org.urdma.transport.cm.perftest;

import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.UnknownHostException;

/** Small helpers for 16-byte GIDs as the exchanges carry them (raw bytes, network order). */
public final class Gids {

    public static final int LENGTH = 16;

    private Gids() {}

    /** The RoCEv2 GID of an IPv4 address: ::ffff:a.b.c.d (rxe's GID index 1). */
    public static byte[] ipv4Mapped(Inet4Address address) {
        byte[] gid = new byte[LENGTH];
        gid[10] = (byte) 0xff;
        gid[11] = (byte) 0xff;
        System.arraycopy(address.getAddress(), 0, gid, 12, 4);
        return gid;
    }

    /** True for ::ffff:a.b.c.d, the form perftest's GID compatibility check calls "IPv4". */
    public static boolean isIpv4Mapped(byte[] gid) {
        check(gid);
        for (int i = 0; i < 10; i++) {
            if (gid[i] != 0) {
                return false;
            }
        }
        return gid[10] == (byte) 0xff && gid[11] == (byte) 0xff;
    }

    /** The IPv4 address inside an IPv4-mapped GID. */
    public static Inet4Address ipv4Of(byte[] gid) {
        if (!isIpv4Mapped(gid)) {
            throw new IllegalArgumentException("gid " + toString(gid) + " is not IPv4-mapped (::ffff:a.b.c.d)");
        }
        try {
            return (Inet4Address) InetAddress.getByAddress(new byte[] {gid[12], gid[13], gid[14], gid[15]});
        } catch (UnknownHostException e) {
            throw new IllegalStateException(e); // four bytes are always a valid address
        }
    }

    /** Colon-separated groups as ibv_devinfo and sysfs print them: 0000:0000:...:0a4d:000b. */
    public static String toString(byte[] gid) {
        check(gid);
        StringBuilder sb = new StringBuilder(39);
        for (int i = 0; i < LENGTH; i += 2) {
            if (i > 0) {
                sb.append(':');
            }
            sb.append(String.format("%02x%02x", gid[i] & 0xff, gid[i + 1] & 0xff));
        }
        return sb.toString();
    }

    static void check(byte[] gid) {
        if (gid == null || gid.length != LENGTH) {
            throw new IllegalArgumentException("gid must be 16 bytes, got "
                    + (gid == null ? "null" : gid.length + " bytes"));
        }
    }
}
