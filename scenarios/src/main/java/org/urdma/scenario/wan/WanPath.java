package org.urdma.scenario.wan;

import java.util.Locale;

/**
 * One cell's path: h1 -(10G)- s1 -(rate R)- h2. The bottleneck is s1's port to h2 (the switch core serializes at R and
 * queues in its shared buffer), the WAN link: its impairment adds half the RTT each way (at s1's egress to h2 and at its
 * ingress from h2) and the random loss on the data direction (s1 to h2), after serialization, as netem on the
 * bottleneck's egress would. h1's link is the data-centre hop where PFC runs, without delay, as PFC is hop by hop.
 */
public record WanPath(double rateGbps, double rttMs, double lossPercent) {
    public static final int MTU = 4200;
    public static final String H1_IP = "10.77.0.1";
    public static final String H2_IP = "10.77.0.2";
    /** Cell size of the switch's delay line (ReleaseHeap) and frame sizes it holds at worst. */
    private static final int DELAY_CELL = 256;

    /**
     * PFC headroom per lossless ingress: what a sender may still send after XOFF. A software host reacts when its engine
     * thread runs, and on two cores that may be a scheduler slice later, after which its pacer makes up to 256 KiB of
     * lateness at the 10G access rate: with 256 KB the switch dropped 300-1500 lossless frames in 8 s at 0 ms RTT.
     */
    static final long HEADROOM = 1L << 20;

    /**
     * The switch buffer: a bandwidth-delay product (at least 4 MB), as a WAN bottleneck is usually sized, plus the
     * headroom of the two lossless ingresses, so the shared pool (TCP's) stays the bandwidth-delay product.
     */
    public long bufferBytes() {
        return Math.max(4L << 20, bdpBytes()) + 2 * HEADROOM;
    }

    public long bdpBytes() {
        return (long) (rateGbps * 1e9 / 8 * rttMs / 1e3);
    }

    /**
     * Bytes the delay line of one direction must hold: R × RTT/2 of frames in flight, in 256-byte cells (a 1514-byte
     * frame takes 6), doubled for bursts above R the impairment sees before the bottleneck queue drops them.
     */
    public long delayLineBytes() {
        long inFlight = (long) (rateGbps * 1e9 / 8 * rttMs / 2 / 1e3);
        long cells = (inFlight + 1513) / 1514 * ((1514 + DELAY_CELL - 1) / DELAY_CELL);
        return Math.max(32L << 20, 2 * cells * DELAY_CELL);
    }

    /** The topology file of this path (see {@link org.urdma.switchemu.topo.TopologyParser}). */
    public String topologyYaml() {
        String oneWay = String.format(Locale.ROOT, "%.3fms", rttMs / 2);
        StringBuilder y = new StringBuilder();
        y.append("hosts:\n");
        y.append("  - {name: h1, mac: \"02:00:00:00:00:01\", ip: ").append(H1_IP).append("/24}\n");
        y.append("  - {name: h2, mac: \"02:00:00:00:00:02\", ip: ").append(H2_IP).append("/24}\n");
        y.append("switches:\n");
        // priority 3 lossless (PFC), as RoCE runs in a data centre; TCP's untagged frames are lossy priority 0
        y.append("  - {name: s1, buffer: ").append(bufferBytes()).append(", classify: pcp, pfc: [3], headroom: ").append(HEADROOM).append("}\n");
        y.append("links:\n");
        // h1's link is the sender's data-centre hop: PFC runs there, so it carries no WAN delay (with the return half of
        // the RTT on it, XOFF and XON reached h1 10 ms late at 20 ms: h1 stayed paused while the queue ran dry)
        y.append("  - endpoints: [h1, s1]\n    rate: 10G\n    mtu: ").append(MTU).append('\n');
        y.append("  - endpoints: [s1, h2]\n    rate: ").append(String.format(Locale.ROOT, "%.0f", rateGbps * 1e9))
            .append("\n    mtu: ").append(MTU).append('\n');
        if (rttMs > 0 || lossPercent > 0) {
            y.append("    impairAtoB: {delay: ").append(oneWay).append(", loss: ")
                .append(String.format(Locale.ROOT, "%s%%", WanResults.num(lossPercent))).append("}\n");
        }
        if (rttMs > 0) {
            y.append("    impairBtoA: {delay: ").append(oneWay).append("}\n");
        }
        return y.toString();
    }
}
