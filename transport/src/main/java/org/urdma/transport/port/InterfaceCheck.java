package org.urdma.transport.port;

import java.net.Inet4Address;
import org.urdma.nativeio.InterfaceAddresses;
import org.urdma.nativeio.NetInterface;

/**
 * Refuses what would make a port on an interface silently useless, with one-line messages naming the interface:
 * a port address the kernel owns (it would take every RoCEv2 frame to that address itself and answer it with ICMP
 * port unreachable, or drop the port's frames as coming from its own address) and an interface that is down.
 */
public final class InterfaceCheck {
    /** How long an interface that is up may still come to have carrier (a veth whose peer was just set up). */
    static final long CARRIER_WAIT_MS = 2_000;

    private InterfaceCheck() {
    }

    /**
     * Throws {@link IllegalArgumentException} if the kernel has {@code cidr}'s address (A.B.C.D or A.B.C.D/NN; null
     * checks nothing) on any interface of this namespace: Linux takes packets for any of its addresses on every one.
     */
    public static void portAddressNotKernels(String ifname, String cidr) {
        if (cidr == null) return;
        int ip = PortIdentity.of(new byte[6], cidr).ipv4();
        for (InterfaceAddresses.Ipv4 a : InterfaceAddresses.ipv4()) {
            if (toInt(a.address()) == ip) {
                String addr = a.address().getHostAddress();
                throw new IllegalArgumentException("--ip " + addr + ": the kernel owns this address (on " + a.ifname()
                        + "), so it would answer RoCEv2 frames to it with ICMP port unreachable; give the port an address of its own"
                        + (a.ifname().equals(ifname) ? "" : " (Linux takes packets for its addresses on every interface, also " + ifname + ")"));
            }
        }
    }

    /** Throws {@link IllegalArgumentException} if {@code ifname} is down, or up but without carrier (after a short wait). */
    public static void interfaceUp(String ifname) {
        NetInterface nif = NetInterface.lookup(ifname); // names a missing interface
        if (!nif.isUp()) throw new IllegalArgumentException("interface " + ifname + " is down (ip link set " + ifname + " up)");
        // carrier itself (IFF_LOWER_UP), not IFF_RUNNING: that follows the operstate, which the kernel may update up to 1 s late
        long end = System.nanoTime() + CARRIER_WAIT_MS * 1_000_000;
        while (!carrier(ifname) && System.nanoTime() - end < 0) {
            try {
                Thread.sleep(50);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
        }
        if (!carrier(ifname)) {
            throw new IllegalArgumentException("interface " + ifname + " is up but has no carrier (a cable out, or for a veth: its peer is down)");
        }
    }

    private static boolean carrier(String ifname) {
        int f = InterfaceAddresses.flags(ifname);
        return f != -1 && (f & InterfaceAddresses.IFF_LOWER_UP) != 0;
    }

    private static int toInt(Inet4Address a) {
        byte[] b = a.getAddress();
        return (b[0] & 0xFF) << 24 | (b[1] & 0xFF) << 16 | (b[2] & 0xFF) << 8 | (b[3] & 0xFF);
    }
}
