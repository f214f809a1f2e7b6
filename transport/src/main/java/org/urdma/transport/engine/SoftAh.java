package org.urdma.transport.engine;

import org.urdma.transport.mcast.MulticastMac;
import org.urdma.transport.packet.Route;
import org.urdma.verbs.AddressHandle;
import org.urdma.verbs.AddressHandleAttributes;
import org.urdma.verbs.ProtectionDomain;

/** A UD address handle: its destination worked out once as a {@link Route} the engine frames packets with. */
public final class SoftAh implements AddressHandle {
    private final SoftPd pd;
    private final AddressHandleAttributes attrs;
    private final Route route = new Route();

    SoftAh(SoftPd pd, AddressHandleAttributes attrs) {
        this.pd = pd;
        this.attrs = attrs.copy();
        // a multicast group's frames go to its MAC whatever dmac says, as the kernel's ib_resolve_eth_dmac sets it
        byte[] dmac = attrs.dgid() != null && attrs.dgid().isMulticast() ? MulticastMac.bytes(attrs.dgid(), "ah_attr.dgid") : attrs.dmac();
        route.set(dmac, attrs.dgid() != null ? attrs.dgid().toBytes() : new byte[16]).trafficClass(attrs.trafficClass());
    }

    Route route() {
        return route;
    }

    @Override
    public AddressHandleAttributes attributes() {
        return attrs.copy();
    }

    @Override
    public ProtectionDomain pd() {
        return pd;
    }

    @Override
    public void close() {
        // stateless
    }
}
