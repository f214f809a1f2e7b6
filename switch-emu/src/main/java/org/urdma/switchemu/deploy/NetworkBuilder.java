package org.urdma.switchemu.deploy;

import org.urdma.nativeio.netns.Topology.LinkOptions;
import org.urdma.switchemu.frame.Mac;
import org.urdma.switchemu.rt.RtSwitch;
import org.urdma.switchemu.topo.Topology;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Consumer;

/**
 * Makes the network of a topology file: a namespace per host and per switch (IPv6 off, so the kernel
 * adds no frames of its own), and a veth pair per link with the link's MTU. A host's end is
 * {@code eth0} with the host's MAC and IPv4 address; a switch's ends are {@link RtSwitch#portInterface}
 * in port order, with the switch's port MACs. Host ends send complete frames (no checksum offload, TSO
 * or GSO: see {@link Offloads}). Everything is made through (and torn down with) a
 * {@link org.urdma.nativeio.netns.Topology}.
 */
public final class NetworkBuilder {
    /** Interface name of a host's single port. */
    public static final String HOST_INTERFACE = "eth0";

    private NetworkBuilder() {
    }

    /** What was made: the namespace of every node. */
    public record Network(Map<String, String> namespaces) {
        public String namespace(String node) {
            String ns = namespaces.get(node);
            if (ns == null) {
                throw new IllegalArgumentException("no node named " + node + " in the topology");
            }
            return ns;
        }
    }

    /**
     * Builds the topology's network inside {@code net} ({@code net.close()} removes it again).
     * {@code made} hears of every namespace right before it is created (for a state file).
     */
    public static Network build(Topology topology, org.urdma.nativeio.netns.Topology net, Consumer<String> made) {
        Map<String, String> namespaces = new LinkedHashMap<>();
        for (String node : nodes(topology)) {
            made.accept(net.prefix() + "-" + node);
            String ns = net.namespace(node);
            net.disableIpv6(ns);
            namespaces.put(node, ns);
        }
        Map<Topology.Link, String[]> ends = new LinkedHashMap<>();
        for (Topology.Switch s : topology.switches().values()) {
            for (Topology.Port p : topology.ports(s.name())) {
                String[] e = ends.computeIfAbsent(p.link(), k -> new String[4]);
                int at = p.link().a().equals(s.name()) ? 0 : 2;
                e[at] = RtSwitch.portInterface(p.port());
                e[at + 1] = Mac.toString(Topology.portMac(s.index(), p.port()));
            }
        }
        for (Topology.Link l : topology.links()) {
            String[] e = ends.get(l);
            for (int at = 0; at < 4; at += 2) {
                if (e[at] == null) {
                    Topology.Host h = topology.hosts().get(at == 0 ? l.a() : l.b());
                    e[at] = HOST_INTERFACE;
                    e[at + 1] = Mac.toString(h.mac());
                }
            }
            net.veth(namespaces.get(l.a()), e[0], namespaces.get(l.b()), e[2],
                LinkOptions.mtu(l.mtu()).withMacs(e[1], e[3]));
        }
        for (Topology.Host h : topology.hosts().values()) {
            boolean linked = topology.links().stream().anyMatch(l -> l.a().equals(h.name()) || l.b().equals(h.name()));
            if (!linked) {
                continue;
            }
            net.addAddress(namespaces.get(h.name()), HOST_INTERFACE, h.ipv4());
            Offloads.disableTx(namespaces.get(h.name()), HOST_INTERFACE);
        }
        return new Network(namespaces);
    }

    private static Iterable<String> nodes(Topology topology) {
        java.util.List<String> nodes = new java.util.ArrayList<>(topology.hosts().keySet());
        nodes.addAll(topology.switches().keySet());
        return nodes;
    }
}
