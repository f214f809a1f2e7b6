package org.urdma.transport.gsi;

import java.util.Arrays;
import java.util.HexFormat;

/**
 * Where a peer's GSI is: its port GID (IPv4-mapped for RoCEv2), its MAC when known (null: the GSI resolves it) and
 * the QP its MADs come from (1).
 */
public record CmPeer(byte[] gid, byte[] mac, int qpn) {
    public CmPeer {
        if (gid == null || gid.length != 16) throw new IllegalArgumentException("gid: must be 16 bytes");
        if (mac != null && mac.length != 6) throw new IllegalArgumentException("mac: must be 6 bytes");
        gid = gid.clone();
        mac = mac == null ? null : mac.clone();
    }

    @Override
    public byte[] gid() {
        return gid.clone();
    }

    @Override
    public byte[] mac() {
        return mac == null ? null : mac.clone();
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof CmPeer p && Arrays.equals(gid, p.gid) && Arrays.equals(mac, p.mac) && qpn == p.qpn;
    }

    @Override
    public int hashCode() {
        return Arrays.hashCode(gid) * 31 + qpn;
    }

    @Override
    public String toString() {
        return "CmPeer[gid " + HexFormat.of().formatHex(gid) + ", qpn " + qpn + "]";
    }
}
