package org.urdma.switchemu.topo;

import java.util.Locale;

/**
 * What every switch of a generated or imported fabric is given: its shared buffer, the lossless priority the hosts
 * send in (PFC on it, headroom per port from its link's delay), RED/ECN thresholds for a port of a reference rate
 * (scaled linearly to each port's rate) and how it forwards. {@link #hpcc(long)} is HPCC's {@code run.py}: buffer
 * 16 MB per 50 Gbit/s of host rate, kmin/kmax 100/400 KB per 25 Gbit/s, pmax 20 %, headroom 3 × rate × delay.
 */
public record FabricSettings(long bufferBytes, int priority, long kminBytes, long kmaxBytes, double pmax, long perRateBps,
                             double headroomDelays, Topology.RoutingMode routing, int linkMtu) {
    public FabricSettings {
        if (bufferBytes < 64_000) throw new IllegalArgumentException("buffer: must be >= 64KB, was " + bufferBytes);
        if (priority < 0 || priority > 7) throw new IllegalArgumentException("priority: must be 0..7, was " + priority);
        if (kminBytes < 0 || kmaxBytes <= kminBytes) throw new IllegalArgumentException("kmax: must be above kmin");
        if (!(pmax >= 0 && pmax <= 1)) throw new IllegalArgumentException("pmax: must be 0..1, was " + pmax);
        if (perRateBps <= 0) throw new IllegalArgumentException("ecn rate: must be > 0");
        if (!(headroomDelays > 0)) throw new IllegalArgumentException("headroom delays: must be > 0");
        if (linkMtu < 1084 || linkMtu > 9216) throw new IllegalArgumentException("mtu: link MTU must be 1084..9216, was " + linkMtu);
        if (routing == Topology.RoutingMode.LEARNING) {
            throw new IllegalArgumentException("routing: a generated fabric has loops; use ecmp or spray");
        }
    }

    /** HPCC's settings for hosts at {@code hostRateBps}. */
    public static FabricSettings hpcc(long hostRateBps) {
        return new FabricSettings(Math.max(64_000, 16_000_000L * (hostRateBps / 1_000_000_000L) / 50), 3, 100_000, 400_000, 0.2,
                25_000_000_000L, 3, Topology.RoutingMode.ECMP, 1500);
    }

    public FabricSettings withBuffer(long bytes) {
        return new FabricSettings(bytes, priority, kminBytes, kmaxBytes, pmax, perRateBps, headroomDelays, routing, linkMtu);
    }

    public FabricSettings withRouting(Topology.RoutingMode r) {
        return new FabricSettings(bufferBytes, priority, kminBytes, kmaxBytes, pmax, perRateBps, headroomDelays, r, linkMtu);
    }

    public FabricSettings withEcn(long kmin, long kmax, double p, long perRate) {
        return new FabricSettings(bufferBytes, priority, kmin, kmax, p, perRate, headroomDelays, routing, linkMtu);
    }

    /** One switch of the fabric as a YAML flow mapping (a list item). */
    String switchYaml(String name, long seed) {
        return String.format(Locale.ROOT, "  - {name: %s, routing: %s, ecmpSeed: %d, buffer: %d, reserve: 1500, classify: default, "
                + "defaultPriority: %d, pfc: [%d], headroomDelays: %s, ecn: {priorities: [%d], kmin: %d, kmax: %d, pmax: %s, "
                + "per: %d}}%n", name, routing.name().toLowerCase(Locale.ROOT), seed, bufferBytes, priority, priority,
                num(headroomDelays), priority, kminBytes, kmaxBytes, num(pmax), perRateBps);
    }

    static String num(double v) {
        return v == Math.rint(v) ? Long.toString((long) v) : Double.toString(v);
    }
}
