package org.urdma.transport.fuzz;

/**
 * What an attacker on the segment may know or guess, for {@link FrameMutator} to aim at: QP numbers, memory keys,
 * addresses around region edges and sources. Set by whoever owns the devices; read on every mutation.
 */
public final class Targets {
    /** QPNs to aim at (live ones and some that are not). */
    public int[] qpns = {0x123456};
    /** R_Keys: granted, ungranted, other PD, lkeys, random. */
    public int[] rkeys = {0};
    /** Virtual addresses: region starts, ends, just outside. */
    public long[] vas = {0};
    /** MACs of hosts that are not the QP's peer. */
    public long[] foreignMacs = {0x02_00_00_00_00_99L};
    /** IPv4 addresses of hosts that are not the QP's peer. */
    public int[] foreignIps = {0x0A0000FE};
}
