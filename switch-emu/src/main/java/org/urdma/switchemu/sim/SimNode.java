package org.urdma.switchemu.sim;

/** Something with ports that frames arrive on (a host or a switch). */
public interface SimNode {
    /** The last bit of {@code frame} arrived on {@code port} at {@code now}. */
    void receive(int port, byte[] frame, long now);

    String name();
}
