package org.urdma.switchemu.core;

/** Where a port takes a frame's priority from. */
public enum ClassifyMode {
    /** 802.1Q PCP when tagged, else the port default. */
    PCP,
    /** IPv4 DSCP through the port's DSCP map, else PCP when tagged, else the port default. */
    DSCP,
    /** Always the port default. */
    DEFAULT
}
