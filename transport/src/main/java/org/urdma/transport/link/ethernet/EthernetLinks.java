package org.urdma.transport.link.ethernet;

import java.util.Locale;
import java.util.function.Function;
import org.urdma.nativeio.AfPacketOptions;
import org.urdma.nativeio.NetInterface;
import org.urdma.nativeio.TapDevice;
import org.urdma.transport.packet.Link;
import org.urdma.transport.port.InterfaceCheck;
import org.urdma.transport.port.LinkUp;
import org.urdma.transport.port.PortIdentity;

/**
 * Opens the Ethernet link a {@code afpacket:IF} or {@code tap:IF} spec names, as the CLI and the application API
 * both do: checks the interface and the port's address first, creates and brings up a TAP, and picks the MAC
 * (given, else the interface's for AF_PACKET, else {@link #TAP_MAC}). A TAP is returned once the kernel counts its link
 * up ({@link LinkUp}): from then on frames to the port reach it.
 */
public final class EthernetLinks {
    /** A fixed locally administered MAC for a TAP port when none is given ("urdma" in ASCII). */
    public static final String TAP_MAC = "02:75:72:64:6d:61";

    private EthernetLinks() {
    }

    /** An open link: the engine's side, what closes it, its port, and a name for banners. */
    public record Opened(Link link, AutoCloseable closer, EthernetDatapath datapath, String description) {
    }

    /**
     * @param spec   {@code afpacket:IF} or {@code tap:IF}
     * @param ip     the port's own IPv4 address (A.B.C.D/NN) or null; one the kernel owns on IF is refused
     * @param mac    the port's MAC or null for the default
     * @param config the link's configuration for the MAC chosen
     * @param rx     the AF_PACKET RX ring version (ignored for TAP)
     * @throws IllegalArgumentException naming what is wrong (the spec, the interface, the address)
     */
    public static Opened open(String spec, String ip, String mac, Function<byte[], EthernetLinkConfig> config,
                              AfPacketOptions.Version rx) {
        String kind = spec.indexOf(':') < 0 ? spec : spec.substring(0, spec.indexOf(':')).toLowerCase(Locale.ROOT);
        String ifname = spec.substring(spec.indexOf(':') + 1);
        if (!(kind.equals("afpacket") || kind.equals("tap")) || ifname.isEmpty()) {
            throw new IllegalArgumentException("--link: give an interface, e.g. afpacket:eth0 or tap:tap0, was '" + spec + "'");
        }
        boolean tap = kind.equals("tap");
        InterfaceCheck.portAddressNotKernels(ifname, ip);
        if (!tap) InterfaceCheck.interfaceUp(ifname); // a TAP is ours and set up below
        if (tap) {
            byte[] m = PortIdentity.parseMac(mac != null ? mac : TAP_MAC);
            TapDevice dev = TapDevice.open(ifname);
            try {
                NetInterface.setUp(ifname, true);
                LinkUp.await(ifname); // a peer may resolve us as soon as this returns
            } catch (RuntimeException e) {
                dev.close();
                throw e;
            }
            TapLink t = new TapLink(dev, config.apply(m), NetInterface.lookup(ifname).mtu(), true);
            return new Opened(t, t, t.datapath(), "TAP " + ifname);
        }
        byte[] m = mac != null ? PortIdentity.parseMac(mac) : NetInterface.lookup(ifname).mac();
        AfPacketLink a = AfPacketLink.open(ifname, config.apply(m), rx);
        return new Opened(a, a, a.datapath(), "AF_PACKET " + ifname + " (TPACKET_" + rx + " RX)");
    }
}
