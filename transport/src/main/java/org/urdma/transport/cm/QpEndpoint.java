package org.urdma.transport.cm;

import java.util.Arrays;
import org.urdma.transport.port.PortIdentity;
import org.urdma.verbs.Gid;
import org.urdma.verbs.PathMtu;

/**
 * One side's half of an out-of-band exchange: what the peer needs to address this QP and, when asked, a
 * memory region (R_Key/VA). Like perftest's {@code pingpong_dest} plus the MAC and negotiated features.
 *
 * @param lid       InfiniBand LID (0 on RoCE; kept for perftest's format)
 * @param qpn       queue pair number (24 bits)
 * @param psn       first packet sequence number this side sends (24 bits)
 * @param gid       the port GID to address (IPv4-mapped for RoCEv2, link-local for RoCEv1)
 * @param mac       the port MAC, or null when the format does not carry it (then it is resolved: ARP or GID)
 * @param mtu       path MTU this side can use
 * @param rkey      R_Key of the advertised region (0 when none)
 * @param va        start address of the advertised region (0 when none)
 * @param size      length of the advertised region in bytes (0 when none or unknown)
 * @param outReads  RDMA READ/atomic depth this side accepts as a responder
 * @param features  negotiated feature bits ({@link Features})
 * @param wan       the WAN-mode features this side offers (urdma's exchange only; {@link WanOffer#NONE} elsewhere)
 */
public record QpEndpoint(int lid, int qpn, int psn, Gid gid, byte[] mac, PathMtu mtu, int rkey, long va, long size,
                         int outReads, int features, WanOffer wan) {
    /** An endpoint in DC mode (no WAN offer), as perftest's exchange carries. */
    public QpEndpoint(int lid, int qpn, int psn, Gid gid, byte[] mac, PathMtu mtu, int rkey, long va, long size,
                      int outReads, int features) {
        this(lid, qpn, psn, gid, mac, mtu, rkey, va, size, outReads, features, WanOffer.NONE);
    }

    public QpEndpoint {
        if (wan == null) wan = WanOffer.NONE;
        if ((qpn & ~0xFFFFFF) != 0) throw new IllegalArgumentException("qpn: must fit 24 bits, was " + qpn);
        if ((psn & ~0xFFFFFF) != 0) throw new IllegalArgumentException("psn: must fit 24 bits, was " + psn);
        if ((lid & ~0xFFFF) != 0) throw new IllegalArgumentException("lid: must fit 16 bits, was " + lid);
        if (gid == null) throw new IllegalArgumentException("gid: must not be null");
        if (mac != null && mac.length != 6) throw new IllegalArgumentException("mac: must be 6 bytes");
        if (mtu == null) throw new IllegalArgumentException("mtu: must not be null");
        if (outReads < 0 || outReads > 255) throw new IllegalArgumentException("outReads: must be 0..255, was " + outReads);
        if (size < 0) throw new IllegalArgumentException("size: must be >= 0");
        mac = mac == null ? null : mac.clone();
    }

    /** Feature bits negotiated as the intersection of both sides' offers. */
    public static final class Features {
        public static final int READ = 1;
        public static final int ATOMIC = 2;
        public static final int IMMEDIATE = 4;
        public static final int SRQ = 8;
        public static final int ALL = READ | ATOMIC | IMMEDIATE | SRQ;

        private Features() {
        }
    }

    @Override
    public byte[] mac() {
        return mac == null ? null : mac.clone();
    }

    public QpEndpoint withRegion(int newRkey, long newVa, long newSize) {
        return new QpEndpoint(lid, qpn, psn, gid, mac, mtu, newRkey, newVa, newSize, outReads, features, wan);
    }

    public QpEndpoint withWan(WanOffer offer) {
        return new QpEndpoint(lid, qpn, psn, gid, mac, mtu, rkey, va, size, outReads, features, offer);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof QpEndpoint e && lid == e.lid && qpn == e.qpn && psn == e.psn && gid.equals(e.gid)
                && Arrays.equals(mac, e.mac) && mtu == e.mtu && rkey == e.rkey && va == e.va && size == e.size
                && outReads == e.outReads && features == e.features && wan.equals(e.wan);
    }

    @Override
    public int hashCode() {
        return (qpn * 31 + psn) * 31 + gid.hashCode();
    }

    @Override
    public String toString() {
        return String.format("QpEndpoint[lid %d, qpn 0x%06x, psn 0x%06x, gid %s, mac %s, mtu %d, rkey 0x%08x, va 0x%x, size %d, reads %d, features 0x%x, %s]",
                lid, qpn, psn, gid, mac == null ? "-" : PortIdentity.macString(mac), mtu.bytes(), rkey, va, size, outReads, features, wan);
    }
}
