package org.urdma.verbs;

/** A UD destination created in a protection domain ({@code ibv_ah}). */
public interface AddressHandle extends AutoCloseable {
    AddressHandleAttributes attributes();

    ProtectionDomain pd();

    @Override
    void close();
}
