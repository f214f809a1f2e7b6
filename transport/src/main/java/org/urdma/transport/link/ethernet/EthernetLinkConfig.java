package org.urdma.transport.link.ethernet;

import org.urdma.transport.link.Ecn;
import org.urdma.transport.port.ArpResolver;
import org.urdma.transport.port.PortIdentity;
import org.urdma.transport.wire.FramingKind;

/**
 * How a device's port sits on a real Ethernet link (AF_PACKET or TAP).
 *
 * @param framing              wire format of every RDMA frame
 * @param port                 the port's own MAC and IPv4 (an IPv4 address is needed for RoCEv2/PAXI Standard)
 * @param vlanId               802.1Q VLAN id to tag every frame with (0 = priority tag only), or -1 for untagged
 * @param pcp                  802.1Q priority (PCP 0..7) when tagging
 * @param pcpFromTrafficClass  take the PCP from the packet's traffic class (DSCP's class selector, tclass >> 5)
 *                             instead of {@code pcp}, like a NIC's DSCP-to-priority map
 * @param maxPayloadCeiling    largest path MTU offered (256..4096; the interface MTU may lower it)
 * @param flushBatch           AF_PACKET: frames committed to the TX ring before a flush is forced (one syscall each)
 * @param arp                  neighbour cache timing
 * @param ecn                  ECN codepoint of RoCEv2 / PAXI Standard frames (default ECT(0), as a NIC with ECN on)
 */
public record EthernetLinkConfig(FramingKind framing, PortIdentity port, int vlanId, int pcp, boolean pcpFromTrafficClass,
                                 int maxPayloadCeiling, int flushBatch, ArpResolver.Config arp, Ecn ecn) {
    public EthernetLinkConfig {
        if (framing == null) throw new IllegalArgumentException("framing: must not be null");
        if (port == null) throw new IllegalArgumentException("port: must not be null");
        if (vlanId < -1 || vlanId > 4094) throw new IllegalArgumentException("vlanId: must be -1 (untagged) or 0..4094, was " + vlanId);
        if (pcp < 0 || pcp > 7) throw new IllegalArgumentException("pcp: must be 0..7, was " + pcp);
        if (maxPayloadCeiling < 256 || Integer.bitCount(maxPayloadCeiling) != 1 || maxPayloadCeiling > 4096) {
            throw new IllegalArgumentException("maxPayloadCeiling: must be 256, 512, 1024, 2048 or 4096, was " + maxPayloadCeiling);
        }
        if (flushBatch < 1) throw new IllegalArgumentException("flushBatch: must be >= 1, was " + flushBatch);
        if (arp == null) throw new IllegalArgumentException("arp: must not be null");
        if (ecn == null) throw new IllegalArgumentException("ecn: must not be null");
        if ((framing == FramingKind.ROCE2 || framing == FramingKind.PAXI_STANDARD) && !port.hasIpv4()) {
            throw new IllegalArgumentException("port: framing " + framing.cliName() + " needs an IPv4 address (--ip A.B.C.D/NN)");
        }
    }

    public static EthernetLinkConfig of(FramingKind framing, PortIdentity port) {
        return new EthernetLinkConfig(framing, port, -1, 0, false, 4096, 64, ArpResolver.Config.defaults(), Ecn.ECT0);
    }

    public EthernetLinkConfig withVlan(int vid, int priority) {
        return new EthernetLinkConfig(framing, port, vid, priority, pcpFromTrafficClass, maxPayloadCeiling, flushBatch, arp, ecn);
    }

    public EthernetLinkConfig withPcpFromTrafficClass(boolean on) {
        return new EthernetLinkConfig(framing, port, vlanId, pcp, on, maxPayloadCeiling, flushBatch, arp, ecn);
    }

    public EthernetLinkConfig withMaxPayload(int ceiling) {
        return new EthernetLinkConfig(framing, port, vlanId, pcp, pcpFromTrafficClass, ceiling, flushBatch, arp, ecn);
    }

    public EthernetLinkConfig withFlushBatch(int n) {
        return new EthernetLinkConfig(framing, port, vlanId, pcp, pcpFromTrafficClass, maxPayloadCeiling, n, arp, ecn);
    }

    public EthernetLinkConfig withArp(ArpResolver.Config c) {
        return new EthernetLinkConfig(framing, port, vlanId, pcp, pcpFromTrafficClass, maxPayloadCeiling, flushBatch, c, ecn);
    }

    public EthernetLinkConfig withEcn(Ecn e) {
        return new EthernetLinkConfig(framing, port, vlanId, pcp, pcpFromTrafficClass, maxPayloadCeiling, flushBatch, arp, e);
    }

    public boolean tagged() {
        return vlanId >= 0;
    }
}
