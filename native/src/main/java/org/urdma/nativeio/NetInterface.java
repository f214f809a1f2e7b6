package org.urdma.nativeio;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;
import java.util.HexFormat;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;
import static org.urdma.nativeio.LinuxConstants.*;

/**
 * A network interface as seen from the calling thread's network namespace: index, MAC, MTU, flags.
 * Looked up with ioctls on a throw-away AF_INET datagram socket, which is created in the current
 * thread's namespace, so the lookup works inside {@code Netns.run(...)}.
 */
public record NetInterface(String name, int index, byte[] mac, int mtu, int flags) {
    /** sizeof(struct ifreq); the union starts at byte 16 (after ifr_name). */
    static final int IFREQ_SIZE = 40;
    static final int IFR_UNION = 16;

    public NetInterface {
        mac = mac.clone();
    }

    @Override
    public byte[] mac() {
        return mac.clone();
    }

    /** MAC as "aa:bb:cc:dd:ee:ff". */
    public String macString() {
        return HexFormat.ofDelimiter(":").formatHex(mac);
    }

    public boolean isUp() {
        return (flags & IFF_UP) != 0;
    }

    /** IFF_RUNNING: the link has carrier (for a veth: its peer is up too). */
    public boolean isRunning() {
        return (flags & IFF_RUNNING) != 0;
    }

    public boolean isPromiscuous() {
        return (flags & IFF_PROMISC) != 0;
    }

    /**
     * Looks up {@code name} in the calling thread's network namespace.
     *
     * @throws IllegalArgumentException if the name is not a valid interface name
     * @throws NativeException          if there is no such interface (message names it) or an ioctl fails
     */
    public static NetInterface lookup(String name) {
        validateName(name);
        int fd = Libc.check(Libc.socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0), "socket", "AF_INET, SOCK_DGRAM");
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment ifr = newIfreq(arena, name);
            ioctl(fd, SIOCGIFINDEX, ifr, name, "SIOCGIFINDEX");
            int index = ifr.get(JAVA_INT, IFR_UNION);
            ioctl(fd, SIOCGIFHWADDR, ifr, name, "SIOCGIFHWADDR");
            // ifr_hwaddr is a struct sockaddr: sa_family (2 bytes) then sa_data
            byte[] mac = ifr.asSlice(IFR_UNION + 2, 6).toArray(JAVA_BYTE);
            ioctl(fd, SIOCGIFMTU, ifr, name, "SIOCGIFMTU");
            int mtu = ifr.get(JAVA_INT, IFR_UNION);
            ioctl(fd, SIOCGIFFLAGS, ifr, name, "SIOCGIFFLAGS");
            int flags = Short.toUnsignedInt(ifr.get(JAVA_SHORT, IFR_UNION));
            return new NetInterface(name, index, mac, mtu, flags);
        } finally {
            Libc.close(fd);
        }
    }

    /** Interface index via if_nametoindex; throws a {@link NativeException} naming the interface if absent. */
    public static int indexOf(String name) {
        validateName(name);
        int idx = Libc.ifNameToIndex(name);
        if (idx == 0) {
            throw unknown(name, Libc.errno(), "if_nametoindex");
        }
        return idx;
    }

    /** SIOCETHTOOL with ETHTOOL_GSET: the link's speed in struct ethtool_cmd (u16 speed at 12, u16 speed_hi at 28). */
    private static final long SIOCETHTOOL = 0x8946;
    private static final int ETHTOOL_GSET = 0x1;
    private static final int ETHTOOL_CMD_SIZE = 44;

    /**
     * The interface's link speed in Mbit/s as the kernel reports it (what {@code /sys/class/net/IF/speed} shows, but
     * read in the calling thread's namespace, which sysfs is not), or -1 when it reports none (veth, TAP, loopback,
     * no carrier).
     */
    public static long speedMbps(String name) {
        validateName(name);
        int fd = Libc.check(Libc.socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0), "socket", "AF_INET, SOCK_DGRAM");
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment cmd = arena.allocate(ETHTOOL_CMD_SIZE, 8);
            cmd.set(JAVA_INT, 0, ETHTOOL_GSET);
            MemorySegment ifr = newIfreq(arena, name);
            ifr.set(java.lang.foreign.ValueLayout.ADDRESS, IFR_UNION, cmd);
            if (Libc.ioctl(fd, SIOCETHTOOL, ifr) < 0) return -1; // EOPNOTSUPP: the driver has no ethtool speed
            long speed = Short.toUnsignedInt(cmd.get(JAVA_SHORT, 12)) | (long) Short.toUnsignedInt(cmd.get(JAVA_SHORT, 28)) << 16;
            return speed == 0 || speed == 0xFFFF_FFFFL ? -1 : speed; // SPEED_UNKNOWN is (u32) -1
        } finally {
            Libc.close(fd);
        }
    }

    /** True if an interface with that name exists in the calling thread's namespace. */
    public static boolean exists(String name) {
        validateName(name);
        return Libc.ifNameToIndex(name) != 0;
    }

    /** Sets or clears IFF_UP (like "ip link set NAME up|down"); needs CAP_NET_ADMIN. */
    public static void setUp(String name, boolean up) {
        validateName(name);
        int fd = Libc.check(Libc.socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0), "socket", "AF_INET, SOCK_DGRAM");
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment ifr = newIfreq(arena, name);
            ioctl(fd, SIOCGIFFLAGS, ifr, name, "SIOCGIFFLAGS");
            short flags = ifr.get(JAVA_SHORT, IFR_UNION);
            flags = (short) (up ? (flags | IFF_UP) : (flags & ~IFF_UP));
            ifr.set(JAVA_SHORT, IFR_UNION, flags);
            ioctl(fd, SIOCSIFFLAGS, ifr, name, "SIOCSIFFLAGS");
        } finally {
            Libc.close(fd);
        }
    }

    static void validateName(String name) {
        if (name == null || name.isEmpty()) {
            throw new IllegalArgumentException("interface name must not be empty");
        }
        if (name.getBytes(StandardCharsets.UTF_8).length >= IFNAMSIZ) {
            throw new IllegalArgumentException("interface name '" + name + "' is longer than " + (IFNAMSIZ - 1) + " bytes");
        }
    }

    static MemorySegment newIfreq(Arena arena, String name) {
        MemorySegment ifr = arena.allocate(IFREQ_SIZE, 8);
        byte[] b = name.getBytes(StandardCharsets.UTF_8);
        MemorySegment.copy(b, 0, ifr, JAVA_BYTE, 0, b.length);
        return ifr;
    }

    private static void ioctl(int fd, long req, MemorySegment ifr, String name, String reqName) {
        if (Libc.ioctl(fd, req, ifr) < 0) {
            int errno = Libc.errno();
            if (errno == Errno.ENODEV || errno == Errno.ENXIO) {
                throw unknown(name, errno, "ioctl " + reqName);
            }
            throw NativeException.of("ioctl", errno, reqName + ", interface '" + name + "'");
        }
    }

    static NativeException unknown(String name, int errno, String function) {
        return new NativeException(function, errno, "no network interface named '" + name
                + "' in this network namespace (" + Libc.strerror(errno) + ")");
    }
}
