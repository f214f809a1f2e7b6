package org.urdma.switchemu.topo;

import org.urdma.switchemu.core.PortConfig;
import org.urdma.switchemu.core.SwitchConfig;
import org.urdma.transport.impair.ImpairmentConfig;
import org.urdma.transport.impair.PsnPattern;

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
    /** A host; {@code priority} is the PFC class a urdma device on it sends in (a simulated world's). */
    public record Host(String name, long mac, String ipv4, int priority, int line) {
        public Host(String name, long mac, String ipv4, int line) {
            this(name, mac, ipv4, 0, line);
        }
    }

    /**
     * A urdma workload of a simulated world: {@code kind} (write-bw, read-bw, send-bw) of {@code size}-byte messages
     * from {@code from} to {@code to} over a {@code qp} (rc, uc) QP pair with the named reliability and cc, {@code depth}
     * outstanding, path MTU {@code mtu}; from {@code startNs} until {@code stopNs} (MAX_VALUE: none) or {@code messages}
     * (0: none) are done.
     */
    public record Workload(String name, String kind, String from, String to, int size, String qp, String reliability,
                           String cc, int depth, int mtu, long startNs, long stopNs, long messages, int line) {
    }

    /**
     * Switch settings, applied to a fresh configuration; ports are added from the links. {@code pfcMask}: lossless
     * priorities; {@code routing}: how it forwards, {@code ecmpSeed} its flow-hash seed; {@code headroomDelays}: when
     * above 0, each lossless port's headroom is the {@code headroom} setting plus that many times its link's bytes in
     * flight over one propagation delay (HPCC's 3; the setting covers what the sender has queued for the wire).
     */
    public record Switch(String name, int index, Consumer<SwitchConfig> settings, Consumer<PortConfig> portSettings,
                         int pfcMask, RoutingMode routing, long ecmpSeed, double headroomDelays, int line) {
    }

    /**
     * How a switch forwards: L2 {@code LEARNING} (learn source MACs, flood unknown destinations; a loop of learning
     * switches is refused), or routed along the topology's shortest paths with all equal-cost next hops, one chosen
     * per flow by hash ({@code ECMP}) or per packet at random ({@code SPRAY}).
     */
    public enum RoutingMode { LEARNING, ECMP, SPRAY }

    /**
     * Who applies a link's impairment: the switch's netem-semantics stage, the kernel's {@code tc netem}
     * (sch_netem), or {@code AUTO}: the kernel where it has sch_netem, else the switch.
     */
    public enum ImpairmentMode { AUTO, SWITCH, KERNEL }

    /**
     * A link; {@code aToB} is the impairment of frames travelling from endpoint a to endpoint b (or null);
     * {@code mode} says who applies it; {@code dropPsns} drops chosen packets in both directions (or null), always
     * in the switch.
     */
    public record Link(String a, String b, long rateBps, int mtu, long delayNs, ImpairmentConfig aToB,
                       ImpairmentConfig bToA, ImpairmentMode mode, PsnPattern dropPsns, int line) {
        public Link(String a, String b, long rateBps, int mtu, long delayNs, ImpairmentConfig aToB, ImpairmentConfig bToA,
                    ImpairmentMode mode, int line) {
            this(a, b, rateBps, mtu, delayNs, aToB, bToA, mode, null, line);
        }

        public String peer(String node) {
            return node.equals(a) ? b : a;
        }

        public boolean impaired() {
            return (aToB != null && !aToB.isNone()) || (bToA != null && !bToA.isNone());
        }
    }

    /**
     * Traffic for the in-process run: {@code from} sends {@code frameBytes}-byte IPv4/UDP frames (ECT(0),
     * VLAN PCP and DSCP from the priority) to {@code to} at {@code rateBps}; 0 (or priority -1) = the run's default.
     */
    public record Flow(String from, String to, long rateBps, int frameBytes, int priority, int line) {
    }

    /** Port {@code port} of a switch is {@code link}, leading to {@code peer}. */
    public record Port(int port, Link link, String peer) {
    }

    private final String source;
    private final Map<String, Host> hosts;
    private final Map<String, Switch> switches;
    private final List<Link> links;
    private final List<Flow> flows;
    private final List<Workload> workloads;
    private Routes routes;

    Topology(String source, Map<String, Host> hosts, Map<String, Switch> switches, List<Link> links, List<Flow> flows,
             List<Workload> workloads) {
        this.source = source;
        this.hosts = hosts;
        this.switches = switches;
        this.links = links;
        this.flows = flows;
        this.workloads = workloads;
    }

    /** The urdma workloads of a simulated world (the file's {@code workloads:}; empty if none given). */
    public List<Workload> workloads() {
        return workloads;
    }

    /** The file it came from (for messages). */
    public String source() {
        return source;
    }

    /** Flows of the in-process run (the file's {@code flows:}; empty if none given). */
    public List<Flow> flows() {
        return flows;
    }

    /**
     * This topology with the impairment of the given links removed (they are impaired elsewhere, e.g. by
     * {@code tc netem}); port order and everything else unchanged.
     */
    public Topology withoutImpairment(java.util.Collection<Link> kernelImpaired) {
        List<Link> out = new ArrayList<>();
        for (Link l : links) {
            out.add(kernelImpaired.contains(l)
                ? new Link(l.a, l.b, l.rateBps, l.mtu, l.delayNs, null, null, l.mode, l.dropPsns, l.line) : l);
        }
        return new Topology(source, hosts, switches, out, flows, workloads);
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

    /** Shortest-path routes of this topology's routed switches (computed once, on first use). */
    public synchronized Routes routes() {
        if (routes == null) routes = new Routes(this);
        return routes;
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
            if (s.headroomDelays > 0) {
                pc.headroomBytes(pc.headroomBytes() + (long) Math.ceil(s.headroomDelays * p.link.rateBps / 8.0 * p.link.delayNs / 1e9));
            }
            config.port(pc);
            maxFrame = Math.max(maxFrame, p.link.mtu + 18 + 4);
        }
        config.maxFrameBytes(Math.max(maxFrame, 1522));
        s.settings.accept(config);
        if (s.routing != RoutingMode.LEARNING) {
            config.routes(routes().table(switchName), s.ecmpSeed, s.routing == RoutingMode.SPRAY);
        }
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
