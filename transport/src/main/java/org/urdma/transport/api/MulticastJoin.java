package org.urdma.transport.api;

import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.UnknownHostException;
import org.urdma.transport.mcast.MulticastMac;
import org.urdma.verbs.AddressHandleAttributes;
import org.urdma.verbs.Gid;
import org.urdma.verbs.QpType;
import org.urdma.verbs.QueuePair;

/**
 * What {@code rdma_join_multicast} gives a UD QP on RoCE, where no SA answers: the kernel's cma works out the MGID
 * from the IP address ({@code cma_iboe_set_mgid}), attaches the QP, and hands RDMA_CM_EVENT_MULTICAST_JOIN the
 * address handle attributes, DestQP 0xFFFFFF and Q_Key RDMA_UDP_QKEY a sender addresses the group with.
 *
 * @param address the group's IP address
 * @param mgid    the multicast GID
 * @param ah      address handle attributes to the group (ibv_create_ah of the event's ah_attr)
 * @param qpn     the DestQP of a multicast SEND (0xFFFFFF)
 * @param qkey    the Q_Key (RDMA_UDP_QKEY)
 * @param qp      the QP attached, or null for a send-only join
 */
public record MulticastJoin(InetAddress address, Gid mgid, AddressHandleAttributes ah, int qpn, int qkey, QueuePair qp) {
    /** The DestQP of a multicast packet. */
    public static final int MULTICAST_QPN = 0xFFFFFF;
    /** IPV6_DEFAULT_HOPLIMIT, which cma gives a RoCEv2 group; a RoCEv1 group stays on the link (1). */
    static final int ROCE_V2_HOP_LIMIT = 64;

    /**
     * The MGID of {@code group} as cma_iboe_set_mgid makes it: an IPv6 group is its own GID; an IPv4 one is
     * ::ffff:a.b.c.d on RoCEv2 (its packets carry the IPv4 address) and ff0e::ffff:a.b.c.d on RoCEv1.
     *
     * @param group  the group's IP address
     * @param roceV2 whether the port's GIDs are RoCEv2's
     * @return the multicast GID
     */
    public static Gid mgidOf(InetAddress group, boolean roceV2) {
        if (group == null) throw new IllegalArgumentException("address: must not be null");
        if (!group.isMulticastAddress()) throw new IllegalArgumentException("address: " + group.getHostAddress() + " is no multicast address");
        if (group instanceof Inet6Address) return Gid.of(group.getAddress());
        Gid mapped = Gid.fromIpv4(group.getAddress());
        if (roceV2) return mapped;
        byte[] g = mapped.toBytes();
        g[0] = (byte) 0xff;
        g[1] = 0x0e;
        return Gid.of(g);
    }

    /**
     * Parses a group's IP address (no name lookups), naming {@code what} when it is none or no multicast group.
     *
     * @param address the address as written
     * @param what    the option or field it came from, for the error
     * @return the group's address
     */
    public static InetAddress parse(String address, String what) {
        if (address == null || address.isEmpty()) throw new IllegalArgumentException(what + ": a multicast address is required");
        boolean literal = address.indexOf(':') >= 0 || address.chars().allMatch(c -> c == '.' || Character.isDigit(c));
        if (!literal) throw new IllegalArgumentException(what + ": '" + address + "' is no IP address");
        InetAddress a;
        try {
            a = InetAddress.getByName(address);
        } catch (UnknownHostException e) {
            throw new IllegalArgumentException(what + ": '" + address + "' is no IP address");
        }
        if (!a.isMulticastAddress()) throw new IllegalArgumentException(what + ": " + address + " is no multicast address");
        if (!(a instanceof Inet4Address) && !(a instanceof Inet6Address)) throw new IllegalArgumentException(what + ": " + address);
        return a;
    }

    /**
     * Joins {@code qp} (UD, or null to send only) to {@code group} on a port whose GIDs are RoCEv2's when
     * {@code roceV2}: attaches it and returns the join event's parameters.
     *
     * @param group  the group's IP address
     * @param roceV2 whether the port's GIDs are RoCEv2's
     * @param qp     the UD QP to attach, or null to send only
     * @return what the join event carries
     */
    public static MulticastJoin join(InetAddress group, boolean roceV2, QueuePair qp) {
        if (qp != null && qp.type() != QpType.UD) throw new IllegalArgumentException("qp_type: a multicast join needs a UD QP, was " + qp.type());
        Gid mgid = mgidOf(group, roceV2);
        AddressHandleAttributes ah = new AddressHandleAttributes().dgid(mgid).dmac(MulticastMac.bytes(mgid, "mgid"))
                .hopLimit(roceV2 ? ROCE_V2_HOP_LIMIT : 1);
        if (qp != null) qp.attachMcast(mgid, 0);
        return new MulticastJoin(group, mgid, ah, MULTICAST_QPN, RdmaCm.UDP_QKEY, qp);
    }

    /** rdma_leave_multicast: detaches the QP the join attached. */
    public void leave() {
        if (qp != null) qp.detachMcast(mgid, 0);
    }
}
