package org.urdma.switchemu.world;

import org.urdma.transport.impair.Impairment;
import org.urdma.transport.impair.PsnDropRule;
import org.urdma.transport.pcap.PcapWriter;

/**
 * One direction of a link: where its frames arrive (a device host, or a port of a switch), its propagation delay,
 * the impairment frames pass (a PSN drop pattern, then netem semantics; each or null) and an optional pcap capture of
 * what enters it. The sender serializes; the wire only carries.
 */
final class Wire {
    final int id;
    /** The host frames arrive at, or null for a switch. */
    final DeviceHost host;
    final SwitchNode sw;
    final int port;
    final long propagationNs;
    final long rateBps;
    Impairment impairment;
    /** Drops decided in advance by PSN, shared by both directions of a link (or null). */
    PsnDropRule drop;
    PcapWriter capture;
    long frames;
    long bytes;

    Wire(int id, DeviceHost host, SwitchNode sw, int port, long rateBps, long propagationNs) {
        if (rateBps <= 0) throw new IllegalArgumentException("rate: must be > 0 bit/s, was " + rateBps);
        if (propagationNs < 0) throw new IllegalArgumentException("delay: must be >= 0 ns, was " + propagationNs);
        this.id = id;
        this.host = host;
        this.sw = sw;
        this.port = port;
        this.rateBps = rateBps;
        this.propagationNs = propagationNs;
    }
}
