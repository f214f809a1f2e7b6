package org.urdma.transport.cm.perftest;

import java.util.Arrays;

/**
 * One side's connection data in perftest's key message (its {@code struct pingpong_dest}): what a peer
 * needs to move its QP to RTR and to address this side's buffer.
 *
 * @param lid      IB LID (0 on RoCE), 16 bits
 * @param outReads max outstanding RDMA READs / atomics this side accepts, 16 bits as printed
 * @param qpn      queue pair number, 24 bits
 * @param psn      first packet sequence number, 24 bits
 * @param rkey     remote key of the buffer, any 32 bits
 * @param vaddr    virtual address of the buffer, 64 bits
 * @param gid      16-byte GID (RoCEv2: ::ffff:a.b.c.d)
 * @param srqn     XRC / DC SRQ number, 32 bits (0 otherwise)
 */
public record PerftestDest(int lid, int outReads, int qpn, int psn, int rkey, long vaddr, byte[] gid, int srqn) {

    public PerftestDest {
        requireBits("lid", lid, 16);
        requireBits("outReads", outReads, 16);
        requireBits("qpn", qpn, 24);
        requireBits("psn", psn, 24);
        Gids.check(gid);
        gid = gid.clone();
    }

    private static void requireBits(String name, int value, int bits) {
        if (value < 0 || value >= (1 << bits)) {
            throw new IllegalArgumentException(name + " must fit in " + bits + " bits (0.." + ((1 << bits) - 1)
                    + "), got " + value);
        }
    }

    @Override
    public byte[] gid() {
        return gid.clone();
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof PerftestDest d && lid == d.lid && outReads == d.outReads && qpn == d.qpn
                && psn == d.psn && rkey == d.rkey && vaddr == d.vaddr && srqn == d.srqn
                && Arrays.equals(gid, d.gid);
    }

    @Override
    public int hashCode() {
        return ((((qpn * 31 + psn) * 31 + rkey) * 31 + Long.hashCode(vaddr)) * 31 + Arrays.hashCode(gid)) * 31
                + lid + outReads + srqn;
    }

    @Override
    public String toString() {
        return String.format("PerftestDest[lid=0x%04x, outReads=%d, qpn=0x%06x, psn=0x%06x, rkey=0x%08x, "
                + "vaddr=0x%016x, gid=%s, srqn=0x%08x]", lid, outReads, qpn, psn, rkey, vaddr, Gids.toString(gid), srqn);
    }
}
