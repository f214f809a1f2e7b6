package org.urdma.switchemu.rt;

import org.urdma.nativeio.netns.Netns;
import org.urdma.switchemu.frame.Mac;
import org.urdma.switchemu.topo.Topology;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The network part of a topology in real namespaces: a namespace per host (interface {@code eth0}
 * with the host's MAC and address) and per switch (interfaces {@code p0, p1, …} in link order, MACs from
 * {@link Topology#portMac}), veth pairs for the links, IPv6 off. {@link #close()} removes it all unless
 * {@link #keep() kept} for {@code urdma topo up}; then a state file lets {@link #down(Path)} remove it
 * later, together with the switch processes recorded in it.
 */
public final class Fabric implements AutoCloseable {
    private static final String STATE_HEADER = "# urdma topology state";

    private final org.urdma.nativeio.netns.Topology net;
    private final Map<String, String> namespaces = new LinkedHashMap<>();

    private Fabric(org.urdma.nativeio.netns.Topology net) {
        this.net = net;
    }

    /** Creates namespaces, veths, MACs and addresses; on failure removes what it made and rethrows. */
    public static Fabric create(Topology topology) {
        Fabric fabric = new Fabric(org.urdma.nativeio.netns.Topology.create());
        try {
            fabric.build(topology);
            return fabric;
        } catch (RuntimeException e) {
            fabric.close();
            throw e;
        }
    }

    private void build(Topology topology) {
        for (String name : topology.hosts().keySet()) {
            namespaces.put(name, net.namespace(name));
        }
        for (String name : topology.switches().keySet()) {
            namespaces.put(name, net.namespace(name));
        }
        for (String ns : namespaces.values()) {
            net.disableIpv6(ns);
        }
        Map<Topology.Link, int[]> switchPorts = new LinkedHashMap<>();
        for (String s : topology.switches().keySet()) {
            for (Topology.Port p : topology.ports(s)) {
                int[] ends = switchPorts.computeIfAbsent(p.link(), k -> new int[]{-1, -1});
                ends[p.link().a().equals(s) ? 0 : 1] = p.port();
            }
        }
        for (Topology.Link l : topology.links()) {
            int[] ends = switchPorts.get(l);
            net.veth(namespaces.get(l.a()), ifname(ends[0]), namespaces.get(l.b()), ifname(ends[1]),
                org.urdma.nativeio.netns.Topology.LinkOptions.mtu(l.mtu())
                    .withMacs(mac(topology, l.a(), ends[0]), mac(topology, l.b(), ends[1])));
        }
        for (Topology.Host h : topology.hosts().values()) {
            net.addAddress(namespaces.get(h.name()), "eth0", h.ipv4());
        }
    }

    /** Interface name of a switch port ({@code p0, p1, …}) or, for -1, of a host ({@code eth0}). */
    public static String ifname(int switchPort) {
        return switchPort < 0 ? "eth0" : "p" + switchPort;
    }

    private static String mac(Topology topology, String node, int switchPort) {
        Topology.Host h = topology.hosts().get(node);
        return Mac.toString(h != null ? h.mac() : Topology.portMac(topology.switches().get(node).index(), switchPort));
    }

    /** The real namespace of a host or switch. */
    public String namespace(String node) {
        return namespaces.get(node);
    }

    public Map<String, String> namespaces() {
        return Collections.unmodifiableMap(namespaces);
    }

    /** Leave everything in place on close (for {@code topo up}). */
    public void keep() {
        net.keep();
    }

    /** Records what {@link #down(Path)} must remove: the namespaces and the given switch process ids. */
    public void writeState(Path file, List<Long> switchPids) throws IOException {
        List<String> lines = new ArrayList<>();
        lines.add(STATE_HEADER);
        for (Map.Entry<String, String> e : namespaces.entrySet()) {
            lines.add("netns " + e.getValue() + " " + e.getKey());
        }
        for (long pid : switchPids) {
            lines.add("pid " + pid);
        }
        Path parent = file.toAbsolutePath().getParent();
        if (parent != null) {
            Files.createDirectories(parent);
        }
        Files.write(file, lines);
    }

    /**
     * Removes what a state file lists: stops the switch processes, deletes the namespaces that still exist
     * (their veths go with them), then the state file. Safe to repeat; returns what it removed.
     */
    public static List<String> down(Path stateFile) throws IOException {
        List<String> removed = new ArrayList<>();
        if (!Files.exists(stateFile)) {
            return removed;
        }
        List<String> lines = Files.readAllLines(stateFile);
        if (lines.isEmpty() || !lines.get(0).equals(STATE_HEADER)) {
            throw new IllegalArgumentException(stateFile + ":1: not an urdma topology state file");
        }
        for (String line : lines) {
            if (line.startsWith("pid ")) {
                long pid = Long.parseLong(line.substring(4).trim());
                ProcessHandle.of(pid).ifPresent(p -> {
                    p.destroy();
                    removed.add("process " + pid);
                });
            }
        }
        for (String line : lines) {
            if (line.startsWith("netns ")) {
                String ns = line.split(" ")[1];
                if (Netns.exists(ns)) {
                    Netns.delete(ns);
                    removed.add("netns " + ns);
                }
            }
        }
        Files.delete(stateFile);
        return removed;
    }

    @Override
    public void close() {
        net.close();
    }
}
