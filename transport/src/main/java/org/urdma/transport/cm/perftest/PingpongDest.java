package org.urdma.transport.cm.perftest;

import java.util.Arrays;

/**
 * One side's data in the ibv_rc/uc/ud/srq_pingpong exchange (rdma-core libibverbs/examples).
 *
 * @param lid IB LID (0 on RoCE), 16 bits
 * @param qpn queue pair number, 24 bits
 * @param psn first packet sequence number, 24 bits
 * @param gid 16-byte GID (all zero when the tool runs without -g)
 */
public record PingpongDest(int lid, int qpn, int psn, byte[] gid) {

    public PingpongDest {
        if (lid < 0 || lid > 0xffff) {
            throw new IllegalArgumentException("lid must be 0..0xffff, got " + lid);
        }
        if (qpn < 0 || qpn > 0xffffff) {
            throw new IllegalArgumentException("qpn must be 0..0xffffff, got " + qpn);
        }
        if (psn < 0 || psn > 0xffffff) {
            throw new IllegalArgumentException("psn must be 0..0xffffff, got " + psn);
        }
        Gids.check(gid);
        gid = gid.clone();
    }

    @Override
    public byte[] gid() {
        return gid.clone();
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof PingpongDest d && lid == d.lid && qpn == d.qpn && psn == d.psn
                && Arrays.equals(gid, d.gid);
    }

    @Override
    public int hashCode() {
        return ((lid * 31 + qpn) * 31 + psn) * 31 + Arrays.hashCode(gid);
    }

    @Override
    public String toString() {
        return String.format("PingpongDest[lid=0x%04x, qpn=0x%06x, psn=0x%06x, gid=%s]", lid, qpn, psn,
                Gids.toString(gid));
    }
}
