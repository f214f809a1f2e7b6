package org.urdma.switchemu.frame;

/**
 * What a switch port expects on the wire (WIRE.md §9). The frame alone cannot tell AFH_Lite from
 * Ethernet, nor AFH_GEN1 from AFH_GEN2, so the port is configured.
 */
public enum PortFormat {
    /** Plain Ethernet II (RoCEv1, RoCEv2, PAXI Standard, anything else). */
    ETHERNET,
    /** Ethernet plus AFH_GEN1 frames (EtherType 0x88B5): SA byte 0 is the traffic class, masked for learning. */
    AFH_GEN1,
    /** Ethernet plus AFH_GEN2_16b frames (EtherType 0x88B5): the SA field is not a MAC, never learned. */
    AFH_GEN2,
    /** Every frame is AFH_Lite: DA then an AFH2 remainder, no EtherType; port default priority, no learning. */
    AFH_LITE
}
