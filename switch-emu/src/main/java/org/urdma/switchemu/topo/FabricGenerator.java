package org.urdma.switchemu.topo;

import java.util.Locale;

/**
 * Writes the topologies fabric experiments use as topology YAML (so a user can read and edit the result before
 * running it): a three-tier fat tree and a two-tier leaf-spine. Hosts are {@code h0, h1, ...} with MAC
 * 02:00:00:00:HH:LL and IPv4 10.x.y.z/8 from their index + 1; every switch gets the same {@link FabricSettings}
 * and its own ECMP seed (its index), so hashing does not polarise across tiers.
 */
public final class FabricGenerator {
    private FabricGenerator() {
    }

    /**
     * A fat tree of {@code pods} pods, each with {@code torsPerPod} ToRs of {@code hostsPerTor} hosts and
     * {@code aggsPerPod} aggregation switches (every ToR to every aggregation switch of its pod); {@code cores}
     * core switches in {@code aggsPerPod} planes: aggregation switch j of every pod reaches cores
     * j·c .. j·c+c-1 (c = cores / aggsPerPod). Rates and propagation delays per tier.
     */
    public record FatTree(int pods, int torsPerPod, int aggsPerPod, int hostsPerTor, int cores, long hostRateBps,
                          long torAggRateBps, long aggCoreRateBps, long hostDelayNs, long torAggDelayNs, long aggCoreDelayNs) {
        public FatTree {
            if (pods < 1 || torsPerPod < 1 || aggsPerPod < 1 || hostsPerTor < 1 || cores < 1) {
                throw new IllegalArgumentException("fat-tree: pods, tors, aggs, hosts per tor and cores must be >= 1");
            }
            if (cores % aggsPerPod != 0) {
                throw new IllegalArgumentException("cores: " + cores + " is not a multiple of aggs per pod (" + aggsPerPod + ")");
            }
            if (hostsPerTor + aggsPerPod > 255 || torsPerPod + cores / aggsPerPod > 255 || pods > 255) {
                throw new IllegalArgumentException("fat-tree: a switch has at most 255 ports");
            }
            if ((long) pods * torsPerPod * hostsPerTor > 65_535) {
                throw new IllegalArgumentException("fat-tree: at most 65535 hosts");
            }
            if (hostRateBps <= 0 || torAggRateBps <= 0 || aggCoreRateBps <= 0 || hostDelayNs < 0 || torAggDelayNs < 0
                || aggCoreDelayNs < 0) {
                throw new IllegalArgumentException("fat-tree: rates must be > 0 and delays >= 0");
            }
        }

        /** The k-ary fat tree (Al-Fares et al.): k pods of k/2 ToRs and k/2 aggregation switches, k/2 hosts per ToR, (k/2)² cores. */
        public static FatTree ofK(int k, long hostRateBps, long fabricRateBps, long delayNs) {
            if (k < 2 || k % 2 != 0) throw new IllegalArgumentException("k: must be even and >= 2, was " + k);
            return new FatTree(k, k / 2, k / 2, k / 2, k * k / 4, hostRateBps, fabricRateBps, fabricRateBps, delayNs, delayNs,
                    delayNs);
        }

        public int hosts() {
            return pods * torsPerPod * hostsPerTor;
        }
    }

    /** {@code leaves} leaves of {@code hostsPerLeaf} hosts, each joined to every one of {@code spines} spines. */
    public record LeafSpine(int leaves, int spines, int hostsPerLeaf, long hostRateBps, long spineRateBps, long hostDelayNs,
                            long spineDelayNs) {
        public LeafSpine {
            if (leaves < 1 || spines < 1 || hostsPerLeaf < 1) {
                throw new IllegalArgumentException("leaf-spine: leaves, spines and hosts per leaf must be >= 1");
            }
            if (hostsPerLeaf + spines > 255 || leaves > 255) throw new IllegalArgumentException("leaf-spine: a switch has at most 255 ports");
            if ((long) leaves * hostsPerLeaf > 65_535) throw new IllegalArgumentException("leaf-spine: at most 65535 hosts");
            if (hostRateBps <= 0 || spineRateBps <= 0 || hostDelayNs < 0 || spineDelayNs < 0) {
                throw new IllegalArgumentException("leaf-spine: rates must be > 0 and delays >= 0");
            }
        }

        /** The spine link rate for an oversubscription (host capacity of a leaf over its uplink capacity). */
        public static long spineRateFor(int hostsPerLeaf, long hostRateBps, int spines, double oversubscription) {
            if (!(oversubscription > 0)) throw new IllegalArgumentException("oversubscription: must be > 0, was " + oversubscription);
            return Math.round(hostsPerLeaf * (double) hostRateBps / (spines * oversubscription));
        }
    }

    public static String fatTree(FatTree t, FabricSettings s) {
        StringBuilder sb = header(String.format(Locale.ROOT, "fat tree: %d pods x (%d ToRs x %d hosts + %d aggs), %d cores; "
                + "host %s, ToR-agg %s, agg-core %s", t.pods, t.torsPerPod, t.hostsPerTor, t.aggsPerPod, t.cores,
                rate(t.hostRateBps), rate(t.torAggRateBps), rate(t.aggCoreRateBps)), t.hosts(), s);
        int tors = t.pods * t.torsPerPod;
        int aggs = t.pods * t.aggsPerPod;
        sb.append("switches:\n");
        int seed = 0;
        for (int i = 0; i < tors; i++) sb.append(s.switchYaml("tor" + i, seed++));
        for (int i = 0; i < aggs; i++) sb.append(s.switchYaml("agg" + i, seed++));
        for (int i = 0; i < t.cores; i++) sb.append(s.switchYaml("core" + i, seed++));
        sb.append("links:\n");
        for (int h = 0; h < t.hosts(); h++) link(sb, "h" + h, "tor" + h / t.hostsPerTor, t.hostRateBps, t.hostDelayNs, s);
        for (int p = 0; p < t.pods; p++) {
            for (int r = 0; r < t.torsPerPod; r++) {
                for (int a = 0; a < t.aggsPerPod; a++) {
                    link(sb, "tor" + (p * t.torsPerPod + r), "agg" + (p * t.aggsPerPod + a), t.torAggRateBps, t.torAggDelayNs, s);
                }
            }
        }
        int plane = t.cores / t.aggsPerPod;
        for (int p = 0; p < t.pods; p++) {
            for (int a = 0; a < t.aggsPerPod; a++) {
                for (int c = 0; c < plane; c++) {
                    link(sb, "agg" + (p * t.aggsPerPod + a), "core" + (a * plane + c), t.aggCoreRateBps, t.aggCoreDelayNs, s);
                }
            }
        }
        return sb.toString();
    }

    public static String leafSpine(LeafSpine t, FabricSettings s) {
        int hosts = t.leaves * t.hostsPerLeaf;
        StringBuilder sb = header(String.format(Locale.ROOT, "leaf-spine: %d leaves x %d hosts, %d spines; host %s, leaf-spine %s "
                + "(oversubscription %.2f:1)", t.leaves, t.hostsPerLeaf, t.spines, rate(t.hostRateBps), rate(t.spineRateBps),
                t.hostsPerLeaf * (double) t.hostRateBps / (t.spines * (double) t.spineRateBps)), hosts, s);
        sb.append("switches:\n");
        int seed = 0;
        for (int i = 0; i < t.leaves; i++) sb.append(s.switchYaml("leaf" + i, seed++));
        for (int i = 0; i < t.spines; i++) sb.append(s.switchYaml("spine" + i, seed++));
        sb.append("links:\n");
        for (int h = 0; h < hosts; h++) link(sb, "h" + h, "leaf" + h / t.hostsPerLeaf, t.hostRateBps, t.hostDelayNs, s);
        for (int l = 0; l < t.leaves; l++) {
            for (int p = 0; p < t.spines; p++) link(sb, "leaf" + l, "spine" + p, t.spineRateBps, t.spineDelayNs, s);
        }
        return sb.toString();
    }

    static StringBuilder header(String what, int hosts, FabricSettings s) {
        StringBuilder sb = new StringBuilder("# ").append(what).append('\n');
        sb.append("# every switch: buffer, PFC on the hosts' priority, RED/ECN thresholds per ").append(rate(s.perRateBps()))
            .append(" of port rate (scaled to each port), routing ").append(s.routing().name().toLowerCase(Locale.ROOT)).append('\n');
        sb.append("hosts:\n");
        for (int h = 0; h < hosts; h++) sb.append(host(h, s.priority()));
        return sb;
    }

    static String host(int index, int priority) {
        int n = index + 1;
        return String.format(Locale.ROOT, "  - {name: h%d, mac: \"02:00:00:00:%02x:%02x\", ip: 10.%d.%d.%d/8, priority: %d}%n", index,
                n >> 8 & 0xFF, n & 0xFF, n >> 16 & 0xFF, n >> 8 & 0xFF, n & 0xFF, priority);
    }

    static void link(StringBuilder sb, String a, String b, long rateBps, long delayNs, FabricSettings s) {
        sb.append(String.format(Locale.ROOT, "  - {endpoints: [%s, %s], rate: %s, delay: %dns, mtu: %d}%n", a, b, rate(rateBps), delayNs,
                s.linkMtu()));
    }

    static String rate(long bps) {
        if (bps % 1_000_000_000L == 0) return bps / 1_000_000_000L + "G";
        if (bps % 1_000_000L == 0) return bps / 1_000_000L + "M";
        return Long.toString(bps);
    }
}
