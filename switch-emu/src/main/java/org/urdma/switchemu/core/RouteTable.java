package org.urdma.switchemu.core;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.agrona.collections.Int2IntHashMap;
import org.agrona.collections.Long2LongHashMap;

/**
 * A routed switch's forwarding table: a destination host address → the group of ports on its shortest paths (all
 * equal-cost next hops). Groups are shared: every destination behind the same set of ports points at one group, so a
 * leaf of a large fabric holds its remote hosts in one entry of ports. A host's IPv4 address leads to its group too,
 * so a broadcast ARP request, which names its target only by address, reaches that host alone. Built once; lookups
 * allocate nothing.
 */
public final class RouteTable {
    /** A destination this table has no route for. */
    public static final int NO_ROUTE = -1;

    private final Long2LongHashMap index;
    /** The groups of MACs denseBase, denseBase + 1, ... when the destinations' MACs are that close together; else null. */
    private final int[] dense;
    private final long denseBase;
    private final Int2IntHashMap byIpv4;
    private final int[] groupStart;
    private final int[] groupSize;
    private final int[] ports;

    private RouteTable(Long2LongHashMap index, int[] dense, long denseBase, Int2IntHashMap byIpv4, int[] groupStart,
                       int[] groupSize, int[] ports) {
        this.index = index;
        this.dense = dense;
        this.denseBase = denseBase;
        this.byIpv4 = byIpv4;
        this.groupStart = groupStart;
        this.groupSize = groupSize;
        this.ports = ports;
    }

    /** The group of {@code mac}, or {@link #NO_ROUTE}. */
    public int group(long mac) {
        if (dense == null) {
            return (int) index.get(mac);
        }
        long i = mac - denseBase;
        return i >= 0 && i < dense.length ? dense[(int) i] : NO_ROUTE;
    }

    /** The group of the host with IPv4 address {@code ipv4}, or {@link #NO_ROUTE}. */
    public int groupOfIpv4(int ipv4) {
        return byIpv4.get(ipv4);
    }

    public int groupSize(int group) {
        return groupSize[group];
    }

    /** Port {@code i} (0 ≤ i < size) of {@code group}, in ascending port order. */
    public int port(int group, int i) {
        return ports[groupStart[group] + i];
    }

    /** Destinations with a route. */
    public int destinations() {
        return index.size();
    }

    /** Distinct port groups. */
    public int groups() {
        return groupSize.length;
    }

    /** The ports towards {@code mac} (a copy, for tests and reports), or an empty array. */
    public int[] ports(long mac) {
        int g = group(mac);
        return g == NO_ROUTE ? new int[0] : Arrays.copyOfRange(ports, groupStart[g], groupStart[g] + groupSize[g]);
    }

    /** Collects routes; ports of one destination may be added in any order and more than once. */
    public static final class Builder {
        private final Map<Long, int[]> routes = new java.util.LinkedHashMap<>();
        private final Map<Integer, Long> addresses = new java.util.LinkedHashMap<>();

        public Builder add(long mac, int[] nextHops) {
            if (nextHops.length == 0) throw new IllegalArgumentException("route to " + Long.toHexString(mac) + ": no port");
            int[] p = Arrays.stream(nextHops).distinct().sorted().toArray();
            routes.put(mac, p);
            return this;
        }

        /** The host with MAC {@code mac} (routed with {@link #add}) has IPv4 address {@code ipv4}. */
        public Builder address(int ipv4, long mac) {
            addresses.put(ipv4, mac);
            return this;
        }

        public RouteTable build() {
            Long2LongHashMap index = new Long2LongHashMap(Math.max(8, routes.size() * 2), 0.65f, NO_ROUTE);
            Map<List<Integer>, Integer> groups = new HashMap<>();
            List<int[]> order = new ArrayList<>();
            for (Map.Entry<Long, int[]> e : routes.entrySet()) {
                List<Integer> key = Arrays.stream(e.getValue()).boxed().toList();
                Integer g = groups.get(key);
                if (g == null) {
                    g = order.size();
                    groups.put(key, g);
                    order.add(e.getValue());
                }
                index.put(e.getKey(), g);
            }
            int[] start = new int[order.size()];
            int[] size = new int[order.size()];
            int total = 0;
            for (int i = 0; i < order.size(); i++) {
                start[i] = total;
                size[i] = order.get(i).length;
                total += size[i];
            }
            int[] ports = new int[total];
            for (int i = 0; i < order.size(); i++) System.arraycopy(order.get(i), 0, ports, start[i], size[i]);
            Int2IntHashMap byIpv4 = new Int2IntHashMap(Math.max(8, addresses.size() * 2), 0.65f, NO_ROUTE);
            for (Map.Entry<Integer, Long> e : addresses.entrySet()) {
                int g = (int) index.get(e.getValue().longValue());
                if (g != NO_ROUTE) byIpv4.put(e.getKey().intValue(), g);
            }
            long min = Long.MAX_VALUE;
            long max = Long.MIN_VALUE;
            for (long mac : routes.keySet()) {
                min = Math.min(min, mac);
                max = Math.max(max, mac);
            }
            // generated fabrics number their hosts' MACs in a row: then one array read, not a hash probe, per frame
            int[] dense = null;
            if (!routes.isEmpty() && max - min < 4L * routes.size() + 64) {
                dense = new int[(int) (max - min + 1)];
                Arrays.fill(dense, NO_ROUTE);
                for (long mac : routes.keySet()) dense[(int) (mac - min)] = (int) index.get(mac);
            }
            return new RouteTable(index, dense, min, byIpv4, start, size, ports);
        }
    }
}
