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
 * @param linkRateBps          the rate PAUSE/PFC quanta are timed at (1 quantum = 512 bit times), or 0 for the
 *                             interface's speed where the kernel reports one, else {@link #DEFAULT_LINK_RATE}
 * @param flowControl          PFC (honour received PFC/PAUSE) or CBFC (PAXI per-VC credits; exclusive with PFC)
 * @param cbfcCredits          CBFC: frames per VC the peer's receiver holds for us (its RX buffer), 0 = this end's own
 *                             RX ring divided among the 8 VCs (peers of one build have the same rings)
 */
public record EthernetLinkConfig(FramingKind framing, PortIdentity port, int vlanId, int pcp, boolean pcpFromTrafficClass,
                                 int maxPayloadCeiling, int flushBatch, ArpResolver.Config arp, Ecn ecn, long linkRateBps,
                                 FlowControl flowControl, int cbfcCredits) {
    /** The rate quanta are timed at when the interface reports no speed (veth, TAP): 10 Gbit/s. */
    public static final long DEFAULT_LINK_RATE = 10_000_000_000L;

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
        if (linkRateBps < 0) throw new IllegalArgumentException("linkRate: must be > 0 bit/s (or 0 for the interface speed), was " + linkRateBps);
        if (flowControl == null) throw new IllegalArgumentException("flowControl: must not be null");
        if (flowControl == FlowControl.CBFC && framing.usesBth()) {
            throw new IllegalArgumentException("flowControl: cbfc needs a PAXI framing (paxi-standard, paxi-afh1, paxi-afh2), was " + framing.cliName());
        }
        if (cbfcCredits < 0 || cbfcCredits > 0x7FFF) throw new IllegalArgumentException("cbfcCredits: must be 0..32767 frames, was " + cbfcCredits);
    }

    public static EthernetLinkConfig of(FramingKind framing, PortIdentity port) {
        return new EthernetLinkConfig(framing, port, -1, 0, false, 4096, 64, ArpResolver.Config.defaults(), Ecn.ECT0, 0, FlowControl.PFC, 0);
    }

    public EthernetLinkConfig withVlan(int vid, int priority) {
        return new EthernetLinkConfig(framing, port, vid, priority, pcpFromTrafficClass, maxPayloadCeiling, flushBatch, arp, ecn, linkRateBps, flowControl, cbfcCredits);
    }

    public EthernetLinkConfig withPcpFromTrafficClass(boolean on) {
        return new EthernetLinkConfig(framing, port, vlanId, pcp, on, maxPayloadCeiling, flushBatch, arp, ecn, linkRateBps, flowControl, cbfcCredits);
    }

    public EthernetLinkConfig withMaxPayload(int ceiling) {
        return new EthernetLinkConfig(framing, port, vlanId, pcp, pcpFromTrafficClass, ceiling, flushBatch, arp, ecn, linkRateBps, flowControl, cbfcCredits);
    }

    public EthernetLinkConfig withFlushBatch(int n) {
        return new EthernetLinkConfig(framing, port, vlanId, pcp, pcpFromTrafficClass, maxPayloadCeiling, n, arp, ecn, linkRateBps, flowControl, cbfcCredits);
    }

    public EthernetLinkConfig withArp(ArpResolver.Config c) {
        return new EthernetLinkConfig(framing, port, vlanId, pcp, pcpFromTrafficClass, maxPayloadCeiling, flushBatch, c, ecn, linkRateBps, flowControl, cbfcCredits);
    }

    public EthernetLinkConfig withEcn(Ecn e) {
        return new EthernetLinkConfig(framing, port, vlanId, pcp, pcpFromTrafficClass, maxPayloadCeiling, flushBatch, arp, e, linkRateBps, flowControl, cbfcCredits);
    }

    /** Times PAUSE/PFC quanta at {@code bps} instead of the interface speed. */
    public EthernetLinkConfig withLinkRate(long bps) {
        return new EthernetLinkConfig(framing, port, vlanId, pcp, pcpFromTrafficClass, maxPayloadCeiling, flushBatch, arp, ecn, bps,
                flowControl, cbfcCredits);
    }

    /** PFC or CBFC; {@code credits} frames per VC for CBFC (0 = from this end's RX ring). */
    public EthernetLinkConfig withFlowControl(FlowControl fc, int credits) {
        return new EthernetLinkConfig(framing, port, vlanId, pcp, pcpFromTrafficClass, maxPayloadCeiling, flushBatch, arp, ecn,
                linkRateBps, fc, credits);
    }

    public boolean tagged() {
        return vlanId >= 0;
    }
}
