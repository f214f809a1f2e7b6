package org.urdma.nativeio;

/**
 * Linux ABI constants (values checked with gcc against the kernel/glibc headers of x86_64;
 * they are the same on aarch64). Names follow the C headers.
 */
public final class LinuxConstants {
    // <sys/socket.h>
    public static final int AF_INET = 2;
    public static final int AF_PACKET = 17;
    public static final int SOCK_DGRAM = 2;
    public static final int SOCK_RAW = 3;
    public static final int SOCK_NONBLOCK = 0x800;
    public static final int SOCK_CLOEXEC = 0x80000;
    public static final int SOL_SOCKET = 1;
    public static final int SO_SNDBUF = 7;
    public static final int SO_RCVBUF = 8;
    public static final int SO_SNDBUFFORCE = 32;
    public static final int SO_RCVBUFFORCE = 33;
    public static final int MSG_TRUNC = 0x20;
    public static final int MSG_DONTWAIT = 0x40;

    // <linux/if_ether.h>
    public static final int ETH_P_ALL = 0x0003;
    public static final int ETH_P_8021Q = 0x8100;
    public static final int ETH_P_8021AD = 0x88A8;

    // <linux/if_packet.h>
    public static final int SOL_PACKET = 263;
    public static final int PACKET_ADD_MEMBERSHIP = 1;
    public static final int PACKET_DROP_MEMBERSHIP = 2;
    public static final int PACKET_RX_RING = 5;
    public static final int PACKET_STATISTICS = 6;
    public static final int PACKET_VERSION = 10;
    public static final int PACKET_TX_RING = 13;
    public static final int PACKET_LOSS = 14;
    public static final int PACKET_QDISC_BYPASS = 20;
    public static final int PACKET_IGNORE_OUTGOING = 23;
    public static final int TPACKET_V2 = 1;
    public static final int TPACKET_V3 = 2;
    public static final int PACKET_MR_MULTICAST = 0;
    public static final int PACKET_MR_PROMISC = 1;
    public static final int TP_STATUS_KERNEL = 0;
    public static final int TP_STATUS_USER = 1;
    public static final int TP_STATUS_COPY = 1 << 1;
    public static final int TP_STATUS_LOSING = 1 << 2;
    public static final int TP_STATUS_CSUMNOTREADY = 1 << 3;
    public static final int TP_STATUS_VLAN_VALID = 1 << 4;
    public static final int TP_STATUS_BLK_TMO = 1 << 5;
    public static final int TP_STATUS_VLAN_TPID_VALID = 1 << 6;
    public static final int TP_STATUS_AVAILABLE = 0;
    public static final int TP_STATUS_SEND_REQUEST = 1;
    public static final int TP_STATUS_SENDING = 1 << 1;
    public static final int TP_STATUS_WRONG_FORMAT = 1 << 2;
    /** TPACKET_ALIGN(sizeof(struct tpacket3_hdr)) + sizeof(struct sockaddr_ll). */
    public static final int TPACKET3_HDRLEN = 68;
    public static final int TPACKET_ALIGNMENT = 16;

    // <linux/sockios.h>, <net/if.h>
    public static final long SIOCGIFFLAGS = 0x8913;
    public static final long SIOCSIFFLAGS = 0x8914;
    public static final long SIOCGIFMTU = 0x8921;
    public static final long SIOCGIFHWADDR = 0x8927;
    public static final long SIOCGIFINDEX = 0x8933;
    public static final int IFNAMSIZ = 16;
    public static final int IFF_UP = 0x1;
    public static final int IFF_BROADCAST = 0x2;
    public static final int IFF_LOOPBACK = 0x8;
    public static final int IFF_RUNNING = 0x40;
    public static final int IFF_PROMISC = 0x100;

    // <linux/if_tun.h>
    public static final long TUNSETIFF = 0x400454caL;
    public static final long TUNSETPERSIST = 0x400454cbL;
    public static final long TUNGETIFF = 0x800454d2L;
    /** In TUNGETIFF's flags: the device outlives its descriptors (made with ip tuntap add or TUNSETPERSIST 1). */
    public static final int IFF_PERSIST = 0x0800;
    public static final int IFF_TUN = 0x0001;
    public static final int IFF_TAP = 0x0002;
    public static final int IFF_NO_PI = 0x1000;

    // <fcntl.h>, <sys/mman.h>, <poll.h>, <sched.h>
    public static final int O_RDONLY = 0;
    public static final int O_RDWR = 2;
    public static final int O_NONBLOCK = 0x800;
    public static final int O_CLOEXEC = 0x80000;
    public static final int PROT_READ = 1;
    public static final int PROT_WRITE = 2;
    public static final int MAP_SHARED = 1;
    public static final int MAP_POPULATE = 0x8000;
    public static final int MAP_PRIVATE = 2;
    public static final int MAP_ANONYMOUS = 0x20;
    public static final int MAP_NORESERVE = 0x4000;
    public static final short POLLIN = 0x1;
    public static final short POLLOUT = 0x4;
    public static final short POLLERR = 0x8;
    public static final int CLONE_NEWNET = 0x40000000;

    private LinuxConstants() {
    }
}
