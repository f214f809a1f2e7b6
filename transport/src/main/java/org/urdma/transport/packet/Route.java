package org.urdma.transport.packet;

/**
 * Where packets go: the destination's MAC and GID and the traffic class, worked out once per connected QP or address
 * handle (not per packet). A link derives the rest (IPv4 destination, UDP source port from the QPN) when it frames.
 */
public final class Route {
    private long dstMac;
    private long dgidHi;
    private long dgidLo;
    private int ipv4;
    private int trafficClass;

    /** Sets the destination from a 6-byte MAC and a 16-byte GID (an IPv4-mapped GID gives the IPv4 address). */
    public Route set(byte[] mac, byte[] gid) {
        long m = 0;
        for (int i = 0; i < 6; i++) m = (m << 8) | (mac[i] & 0xFF);
        long hi = 0;
        long lo = 0;
        for (int i = 0; i < 8; i++) {
            hi = (hi << 8) | (gid[i] & 0xFF);
            lo = (lo << 8) | (gid[8 + i] & 0xFF);
        }
        return set(m, hi, lo);
    }

    /** The same from a MAC in the low 48 bits and the GID's two halves (a received packet's source; no allocation). */
    public Route set(long m, long hi, long lo) {
        dstMac = m;
        dgidHi = hi;
        dgidLo = lo;
        // ::ffff:a.b.c.d is the RoCEv2 GID of an IPv4 address; otherwise (in-memory links) 10.0.0.x from the MAC
        ipv4 = hi == 0 && (lo >>> 32) == 0xFFFF ? (int) lo : 0x0A000000 | (int) (m & 0xFF);
        return this;
    }

    public Route trafficClass(int tc) {
        this.trafficClass = tc & 0xFF;
        return this;
    }

    public long dstMac() {
        return dstMac;
    }

    public long dgidHi() {
        return dgidHi;
    }

    public long dgidLo() {
        return dgidLo;
    }

    /** The IPv4 destination for RoCEv2/PAXI Standard frames. */
    public int ipv4() {
        return ipv4;
    }

    public int trafficClass() {
        return trafficClass;
    }

    @Override
    public String toString() {
        return String.format("route[mac %012x gid %016x%016x tc %d]", dstMac, dgidHi, dgidLo, trafficClass);
    }
}
