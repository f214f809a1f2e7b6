package org.urdma.switchemu.topo;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.urdma.switchemu.core.RouteTable;

/**
 * Shortest-path routes of a topology, as a fabric's control plane would install them: for every host, a
 * breadth-first search from it through the switches (hosts are never transit) gives each switch its distance to
 * the host, and a switch's next hops towards the host are all its ports whose neighbour is one hop closer. Every
 * equal-cost next hop is kept; a routed switch's {@link RouteTable} maps each host's MAC to those ports.
 */
public final class Routes {
    private final Topology topology;
    private final List<String> nodes = new ArrayList<>();
    private final Map<String, Integer> id = new HashMap<>();
    private final boolean[] isHost;
    /** Per node: neighbour ids and the port (on this node) and link leading to each. */
    private final int[][] peer;
    private final int[][] port;
    private final Topology.Link[][] link;
    private final Map<String, RouteTable> tables = new HashMap<>();
    /** Distance of every node to host h, per host id (lazily, one BFS per host). */
    private final Map<Integer, int[]> distances = new HashMap<>();

    Routes(Topology t) {
        this.topology = t;
        for (String h : t.hosts().keySet()) add(h);
        for (String s : t.switches().keySet()) add(s);
        int n = nodes.size();
        isHost = new boolean[n];
        for (String h : t.hosts().keySet()) isHost[id.get(h)] = true;
        List<List<int[]>> adj = new ArrayList<>();
        List<List<Topology.Link>> adjLinks = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            adj.add(new ArrayList<>());
            adjLinks.add(new ArrayList<>());
        }
        int[] nextPort = new int[n];
        for (Topology.Link l : t.links()) {
            int a = id.get(l.a());
            int b = id.get(l.b());
            adj.get(a).add(new int[] {b, nextPort[a]++});
            adj.get(b).add(new int[] {a, nextPort[b]++});
            adjLinks.get(a).add(l);
            adjLinks.get(b).add(l);
        }
        peer = new int[n][];
        port = new int[n][];
        link = new Topology.Link[n][];
        for (int i = 0; i < n; i++) {
            List<int[]> a = adj.get(i);
            peer[i] = new int[a.size()];
            port[i] = new int[a.size()];
            for (int k = 0; k < a.size(); k++) {
                peer[i][k] = a.get(k)[0];
                port[i][k] = a.get(k)[1];
            }
            link[i] = adjLinks.get(i).toArray(new Topology.Link[0]);
        }
    }

    private void add(String name) {
        id.put(name, nodes.size());
        nodes.add(name);
    }

    /** Hops from every node to host {@code h} (-1: unreachable); only switches are crossed. */
    private synchronized int[] distance(int h) {
        return distances.computeIfAbsent(h, x -> {
            int[] d = new int[nodes.size()];
            Arrays.fill(d, -1);
            int[] queue = new int[nodes.size()];
            int head = 0;
            int tail = 0;
            d[x] = 0;
            queue[tail++] = x;
            while (head < tail) {
                int u = queue[head++];
                if (isHost[u] && u != x) continue;
                for (int v : peer[u]) {
                    if (d[v] < 0) {
                        d[v] = d[u] + 1;
                        queue[tail++] = v;
                    }
                }
            }
            return d;
        });
    }

    /** The route table of switch {@code name}: every host it can reach, with all its equal-cost ports. */
    public synchronized RouteTable table(String name) {
        return tables.computeIfAbsent(name, s -> {
            int u = id.get(s);
            RouteTable.Builder b = new RouteTable.Builder();
            for (Topology.Host h : topology.hosts().values()) {
                int[] next = nextHops(u, id.get(h.name()));
                if (next.length > 0) {
                    b.add(h.mac(), next);
                    b.address(ipv4(h.ipv4()), h.mac());
                }
            }
            return b.build();
        });
    }

    /** The address of a CIDR ({@code 10.0.0.1/24}) as an int. */
    private static int ipv4(String cidr) {
        String[] q = cidr.substring(0, cidr.indexOf('/') < 0 ? cidr.length() : cidr.indexOf('/')).split("\\.");
        int a = 0;
        for (String x : q) a = a << 8 | Integer.parseInt(x);
        return a;
    }

    /** Indices (into this node's adjacency) of the neighbours one hop closer to host {@code h}. */
    private int[] nextHopIndices(int u, int h) {
        int[] d = distance(h);
        if (d[u] <= 0) return new int[0];
        int[] out = new int[peer[u].length];
        int n = 0;
        for (int k = 0; k < peer[u].length; k++) {
            int v = peer[u][k];
            if (d[v] == d[u] - 1 && (!isHost[v] || v == h)) out[n++] = k;
        }
        return Arrays.copyOf(out, n);
    }

    private int[] nextHops(int u, int h) {
        int[] k = nextHopIndices(u, h);
        int[] ports = new int[k.length];
        for (int i = 0; i < k.length; i++) ports[i] = port[u][k[i]];
        return ports;
    }

    /** Hops (links) between two hosts, or -1 if there is no path. */
    public int hops(String from, String to) {
        return distance(id.get(to))[id.get(from)];
    }

    /**
     * The links of one shortest path from host {@code from} to host {@code to} (at each switch the lowest equal-cost
     * port), in order; empty if there is none.
     */
    public List<Topology.Link> path(String from, String to) {
        int h = id.get(to);
        int u = id.get(from);
        List<Topology.Link> out = new ArrayList<>();
        if (distance(h)[u] < 0) return out;
        // the host's own link first, then switch by switch
        out.add(link[u][0]);
        u = peer[u][0];
        while (u != h) {
            int[] k = nextHopIndices(u, h);
            if (k.length == 0) return List.of();
            out.add(link[u][k[0]]);
            u = peer[u][k[0]];
        }
        return out;
    }
}
