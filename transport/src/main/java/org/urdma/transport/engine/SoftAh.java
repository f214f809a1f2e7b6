package org.urdma.transport.engine;

import org.urdma.verbs.AddressHandle;
import org.urdma.verbs.AddressHandleAttributes;
import org.urdma.verbs.ProtectionDomain;

/** A UD address handle; GID and MAC are kept as arrays the engine copies into packets without allocating. */
public final class SoftAh implements AddressHandle {
    private final SoftPd pd;
    private final AddressHandleAttributes attrs;
    final byte[] dgid = new byte[16];
    final byte[] dmac;

    SoftAh(SoftPd pd, AddressHandleAttributes attrs) {
        this.pd = pd;
        this.attrs = attrs.copy();
        if (attrs.dgid() != null) System.arraycopy(attrs.dgid().toBytes(), 0, dgid, 0, 16);
        this.dmac = attrs.dmac();
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
