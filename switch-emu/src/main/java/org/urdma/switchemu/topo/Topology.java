package org.urdma.switchemu.topo;

import org.urdma.switchemu.core.PortConfig;
import org.urdma.switchemu.core.SwitchConfig;
import org.urdma.switchemu.impair.ImpairmentConfig;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

/**
 * A parsed topology: hosts (one port each), switches, and point-to-point links with rate, MTU,
 * propagation delay and impairment per direction. A switch's ports are numbered in the order its
 * links appear in the file.
 */
public final class Topology {
    public record Host(String name, long mac, String ipv4, int line) {
    }

    /** Switch settings, applied to a fresh configuration; ports are added from the links. */
    public record Switch(String name, int index, Consumer<SwitchConfig> settings, Consumer<PortConfig> portSettings,
                         int line) {
    }

    /** A link; {@code aToB} is the impairment of frames travelling from endpoint a to endpoint b (or null). */
    public record Link(String a, String b, long rateBps, int mtu, long delayNs, ImpairmentConfig aToB,
                       ImpairmentConfig bToA, int line) {
        public String peer(String node) {
            return node.equals(a) ? b : a;
        }
    }

    /** Port {@code port} of a switch is {@code link}, leading to {@code peer}. */
    public record Port(int port, Link link, String peer) {
    }

    private final String source;
    private final Map<String, Host> hosts;
    private final Map<String, Switch> switches;
    private final List<Link> links;

    Topology(String source, Map<String, Host> hosts, Map<String, Switch> switches, List<Link> links) {
        this.source = source;
        this.hosts = hosts;
        this.switches = switches;
        this.links = links;
    }

    public Map<String, Host> hosts() {
        return hosts;
    }

    public Map<String, Switch> switches() {
        return switches;
    }

    public List<Link> links() {
        return links;
    }

    public List<Port> ports(String switchName) {
        List<Port> ports = new ArrayList<>();
        for (Link l : links) {
            if (l.a.equals(switchName) || l.b.equals(switchName)) {
                ports.add(new Port(ports.size(), l, l.peer(switchName)));
            }
        }
        return ports;
    }

    /** The link a host is attached to. */
    public Link hostLink(String hostName) {
        for (Link l : links) {
            if (l.a.equals(hostName) || l.b.equals(hostName)) {
                return l;
            }
        }
        throw new IllegalArgumentException("host " + hostName + " has no link");
    }

    /** The switch's full configuration: its settings plus one port per link (rate from the link). */
    public SwitchConfig switchConfig(String switchName) {
        Switch s = switches.get(switchName);
        if (s == null) {
            throw new IllegalArgumentException("no switch named " + switchName);
        }
        SwitchConfig config = new SwitchConfig();
        int maxFrame = 0;
        for (Port p : ports(switchName)) {
            PortConfig pc = new PortConfig().rateBps(p.link.rateBps).mac(portMac(s.index, p.port));
            s.portSettings.accept(pc);
            config.port(pc);
            maxFrame = Math.max(maxFrame, p.link.mtu + 18 + 4);
        }
        config.maxFrameBytes(Math.max(maxFrame, 1522));
        s.settings.accept(config);
        try {
            config.validate();
        } catch (IllegalArgumentException e) {
            throw new TopologyException(source, s.line, "switch " + switchName + ": " + e.getMessage());
        }
        return config;
    }

    /** Locally administered MAC of a switch port: 02:5e:00:SS:00:PP. */
    public static long portMac(int switchIndex, int port) {
        return 0x02_5E_00_00_00_00L | ((long) (switchIndex & 0xFF) << 16) | (port & 0xFF);
    }
}
