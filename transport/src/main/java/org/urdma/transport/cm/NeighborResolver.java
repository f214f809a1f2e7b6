package org.urdma.transport.cm;

import java.util.concurrent.locks.LockSupport;
import org.urdma.transport.engine.SoftDevice;
import org.urdma.transport.link.ethernet.EthernetDatapath;
import org.urdma.transport.port.ArpResolver;
import org.urdma.transport.port.GidTable;
import org.urdma.transport.port.PortIdentity;
import org.urdma.verbs.Gid;

/**
 * Finds the MAC to put in a QP's address vector for a peer GID, like the kernel's rdma_resolve_addr:
 * a link-local (RoCEv1) GID carries its MAC (EUI-64); an IPv4-mapped (RoCEv2) GID is resolved by ARP on
 * the device's own port. Control path: the ARP state lives on the engine thread and is reached through
 * {@link SoftDevice#control}.
 */
public final class NeighborResolver {
    private NeighborResolver() {
    }

    /**
     * @throws ConnectionException when ARP gets no answer within {@code timeoutNanos}, or the GID is neither kind
     */
    public static byte[] resolve(SoftDevice device, EthernetDatapath port, Gid peer, long timeoutNanos) {
        if (GidTable.isIpv4Mapped(peer)) {
            int ip = GidTable.ipv4Of(peer);
            if (!port.config().port().onLink(ip)) {
                throw new ConnectionException("ARP: " + PortIdentity.ipv4String(ip) + " is not on the port's subnet "
                        + port.config().port() + " (no routing: put both ports on one link)");
            }
            long deadline = System.nanoTime() + timeoutNanos;
            ArpResolver r = port.arp().resolver();
            while (true) {
                long mac = device.control(() -> r.resolve(ip, System.nanoTime()));
                if (mac >= 0) return PortIdentity.macToBytes(mac);
                if (mac == ArpResolver.FAILED || System.nanoTime() - deadline > 0) {
                    throw new ConnectionException("ARP: no answer for " + PortIdentity.ipv4String(ip) + " on port "
                            + port.config().port() + " within " + timeoutNanos / 1_000_000 + " ms");
                }
                LockSupport.parkNanos(200_000);
            }
        }
        if (GidTable.isMacDerived(peer)) return GidTable.macOf(peer);
        throw new ConnectionException("gid: " + peer + " is neither IPv4-mapped (RoCEv2) nor a MAC-derived link-local GID (RoCEv1)");
    }
}
