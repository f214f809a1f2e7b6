package org.urdma.switchemu.deploy;

import org.urdma.nativeio.Libc;
import org.urdma.nativeio.netns.Netns;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;

/**
 * Turns off a host veth's TX checksum offload, TSO and GSO (ethtool's SIOCETHTOOL, no ethtool binary
 * needed). Why: a switch port reads frames with AF_PACKET, so a kernel-stack frame (ping, TCP, the
 * connection manager's TCP) must leave the host complete — with a checksum-offloaded frame the
 * checksum field is not filled in, and a GSO frame is up to 64 KB; forwarded as is, the receiving host
 * would drop the first and the switch's RX ring would truncate the second.
 */
public final class Offloads {
    private static final long SIOCETHTOOL = 0x8946;
    private static final int ETHTOOL_STXCSUM = 0x17;
    private static final int ETHTOOL_SSG = 0x19;
    private static final int ETHTOOL_STSO = 0x1f;
    private static final int ETHTOOL_SGSO = 0x24;
    private static final int AF_INET = 2;
    private static final int SOCK_DGRAM = 2;

    private Offloads() {
    }

    /** Offloads off on {@code ifname} in namespace {@code ns}; throws naming the interface if the kernel refuses. */
    public static void disableTx(String ns, String ifname) {
        Netns.run(ns, () -> disableTx(ifname));
    }

    static void disableTx(String ifname) {
        int fd = Libc.socket(AF_INET, SOCK_DGRAM, 0);
        Libc.check(fd, "socket", "AF_INET for SIOCETHTOOL");
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment value = arena.allocate(8, 4);
            MemorySegment ifr = arena.allocate(40, 8);
            byte[] name = ifname.getBytes(java.nio.charset.StandardCharsets.US_ASCII);
            MemorySegment.copy(name, 0, ifr, JAVA_BYTE, 0, Math.min(name.length, 15));
            ifr.set(ADDRESS, 16, value);
            // TSO and GSO first: the kernel keeps TSO only with checksum offload anyway
            for (int cmd : new int[]{ETHTOOL_STSO, ETHTOOL_SGSO, ETHTOOL_STXCSUM, ETHTOOL_SSG}) {
                value.set(JAVA_INT, 0, cmd);
                value.set(JAVA_INT, 4, 0);
                Libc.check(Libc.ioctl(fd, SIOCETHTOOL, ifr), "ioctl", "SIOCETHTOOL 0x" + Integer.toHexString(cmd)
                    + " off on '" + ifname + "'");
            }
        } finally {
            Libc.close(fd);
        }
    }
}
