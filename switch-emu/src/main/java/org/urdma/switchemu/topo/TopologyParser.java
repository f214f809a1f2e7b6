package org.urdma.switchemu.topo;

import org.snakeyaml.engine.v2.api.LoadSettings;
import org.snakeyaml.engine.v2.api.lowlevel.Compose;
import org.snakeyaml.engine.v2.exceptions.Mark;
import org.snakeyaml.engine.v2.exceptions.MarkedYamlEngineException;
import org.snakeyaml.engine.v2.exceptions.YamlEngineException;
import org.snakeyaml.engine.v2.nodes.MappingNode;
import org.snakeyaml.engine.v2.nodes.Node;
import org.snakeyaml.engine.v2.nodes.NodeTuple;
import org.snakeyaml.engine.v2.nodes.ScalarNode;
import org.snakeyaml.engine.v2.nodes.SequenceNode;
import org.urdma.switchemu.core.ClassifyMode;
import org.urdma.switchemu.core.ForwardingMode;
import org.urdma.switchemu.core.PortConfig;
import org.urdma.switchemu.core.SwitchConfig;
import org.urdma.switchemu.core.WatchdogAction;
import org.urdma.switchemu.frame.Mac;
import org.urdma.switchemu.frame.PortFormat;
import org.urdma.transport.impair.ImpairmentConfig;
import org.urdma.transport.impair.PsnPattern;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * Reads a topology file (YAML, through snakeyaml-engine's node API so that every error names its
 * line). Unknown keys, missing required keys, bad units and dangling link ends are errors.
 *
 * <pre>
 * hosts:
 *   - {name: h1, mac: "02:00:00:00:00:01", ip: 10.0.0.1/24}
 * switches:
 *   - name: s1
 *     buffer: 4MB
 *     alpha: 1
 *     pfc: [3]
 *     ecn: {priorities: [3], kmin: 5KB, kmax: 200KB, pmax: 1%}
 *     watchdog: {detection: 200ms, restoration: 200ms, action: drop}
 * links:
 *   - endpoints: [h1, s1]
 *     rate: 10G
 *     delay: 1us
 *     impair: {delay: 10ms, jitter: 1ms, loss: 0.1%}
 *     impairment: auto         # who applies it: switch, kernel (tc netem), auto (kernel if it has sch_netem)
 *     dropPsns: {qp: 0x12, psns: "2,4-5,100-103"}   # drop the first transmission of these PSNs (counted from the
 *                              # first PSN seen) of QP 0x12, or of every QP without qp; both directions, in the switch
 * impairment: switch           # the default for every link (switch if not given: seeded, the same everywhere)
 * routing: ecmp                # the default for every switch: learning (L2, the default; loops refused), ecmp
 *                              # (shortest paths, a next hop per flow by 5-tuple hash) or spray (one per packet);
 *                              # a switch may say its own routing:, and ecmpSeed: N (default: its index)
 *                              # ecn: {..., per: 25G} scales kmin/kmax with each port's rate (given for 25G ports);
 *                              # headroomDelays: 3 adds 3 x rate x its link's delay to each port's headroom;
 *                              # intStamp: true stamps HPCC's in-band telemetry at every port's egress
 * flows:                       # traffic of the in-process run (default: every host to the last one)
 *   - {from: h1, to: h2, rate: 1G, size: 1024, priority: 3}
 * workloads:                   # urdma devices on the hosts running the real engine (urdma scenario run)
 *   - {name: w1, kind: write-bw, from: h1, to: h2, size: 64KB, qp: rc, reliability: go-back-n, cc: dcqcn,
 *      depth: 4, mtu: 1024, start: 1ms, stop: 20ms}         # or messages: N (a closed loop) instead of stop
 * </pre>
 */
public final class TopologyParser {
    private static final Set<String> TOP = Set.of("hosts", "switches", "links", "flows", "impairment", "workloads",
        "routing");
    private static final Set<String> WORKLOAD = Set.of("name", "kind", "from", "to", "size", "qp", "reliability", "cc",
        "depth", "mtu", "start", "stop", "messages");
    private static final Set<String> FLOW = Set.of("from", "to", "rate", "size", "priority");
    private static final Set<String> HOST = Set.of("name", "mac", "ip", "priority");
    private static final Set<String> SWITCH = Set.of("name", "buffer", "cell", "reserve", "alpha", "resumeOffset",
        "pauseQuanta", "macAging", "macTableSize", "forwarding", "pipelineDelay", "cutThroughBytes", "watchdog", "pfc",
        "ecn", "classify", "defaultPriority", "strict", "weights", "headroom", "format", "dscp", "routing", "ecmpSeed",
        "headroomDelays", "intStamp");
    private static final Set<String> WATCHDOG = Set.of("detection", "restoration", "action");
    private static final Set<String> ECN = Set.of("priorities", "kmin", "kmax", "pmax", "per");
    private static final Set<String> LINK = Set.of("endpoints", "rate", "mtu", "delay", "impair", "impairAtoB", "impairBtoA",
        "impairment", "dropPsns");
    private static final Set<String> DROP_PSNS = Set.of("qp", "psns");
    private static final Set<String> IMPAIR = Set.of("delay", "jitter", "delayCorrelation", "loss", "lossCorrelation",
        "gemodel", "state", "duplicate", "duplicateCorrelation", "reorder", "reorderCorrelation", "gap", "corrupt",
        "corruptCorrelation", "rate");
    private static final Set<String> GEMODEL = Set.of("p", "r", "lossInBad", "lossInGood");
    private static final Set<String> STATE = Set.of("p13", "p31", "p32", "p23", "p14");

    /** IPv4 20 + UDP 8 + BTH 12 + RETH 16 + ICRC 4: what a RoCEv2 packet adds to its payload inside the link MTU. */
    private static final int ROCE2_HEADERS = 60;

    private final String source;

    private TopologyParser(String source) {
        this.source = source;
    }

    public static Topology parse(Path file) throws IOException {
        return parse(Files.readString(file), file.toString());
    }

    public static Topology parse(String text, String source) {
        Node root;
        try {
            root = new Compose(LoadSettings.builder().setLabel(source).build()).composeString(text).orElse(null);
        } catch (MarkedYamlEngineException e) {
            int line = e.getProblemMark().or(e::getContextMark).map(m -> m.getLine() + 1).orElse(0);
            throw new TopologyException(source, line, "not valid YAML: " + e.getProblem());
        } catch (YamlEngineException e) {
            throw new TopologyException(source, 0, "not valid YAML: " + e.getMessage());
        }
        if (root == null) {
            throw new TopologyException(source, 1, "empty topology file");
        }
        return new TopologyParser(source).topology(root);
    }

    private Topology topology(Node root) {
        Map<String, Node> top = mapping(root, "the topology", TOP);
        Map<String, Topology.Host> hosts = new LinkedHashMap<>();
        Map<String, Topology.Switch> switches = new LinkedHashMap<>();
        Map<String, Integer> names = new LinkedHashMap<>();
        if (top.containsKey("hosts")) {
            for (Node n : sequence(top.get("hosts"), "hosts")) {
                Topology.Host h = host(n, hosts.size());
                claim(names, h.name(), n);
                hosts.put(h.name(), h);
            }
        }
        Topology.RoutingMode defaultRouting = top.containsKey("routing")
            ? value(top.get("routing"), "routing", TopologyParser::routing) : Topology.RoutingMode.LEARNING;
        if (top.containsKey("switches")) {
            for (Node n : sequence(top.get("switches"), "switches")) {
                Topology.Switch s = switchSpec(n, switches.size(), defaultRouting);
                claim(names, s.name(), n);
                switches.put(s.name(), s);
            }
        }
        Node linksNode = require(top, "links", root);
        Topology.ImpairmentMode defaultMode = top.containsKey("impairment")
            ? value(top.get("impairment"), "impairment", TopologyParser::mode) : Topology.ImpairmentMode.SWITCH;
        List<Topology.Link> links = new ArrayList<>();
        Map<String, Integer> hostLinks = new LinkedHashMap<>();
        for (Node n : sequence(linksNode, "links")) {
            Topology.Link l = link(n, defaultMode);
            for (String end : List.of(l.a(), l.b())) {
                if (!names.containsKey(end)) {
                    throw error(n, "link end '" + end + "' is neither a host nor a switch");
                }
                if (hosts.containsKey(end) && hostLinks.put(end, l.line()) != null) {
                    throw error(n, "host " + end + " already has a link (line " + hostLinks.get(end) + "); hosts have one port");
                }
            }
            if (l.a().equals(l.b())) {
                throw error(n, "a link needs two different ends");
            }
            if (!switches.containsKey(l.a()) && !switches.containsKey(l.b())) {
                throw error(n, "a link needs a switch at one end (impairment and forwarding live in switches)");
            }
            links.add(l);
        }
        refuseLearningLoops(switches, links);
        List<Topology.Flow> flows = new ArrayList<>();
        if (top.containsKey("flows")) {
            for (Node n : sequence(top.get("flows"), "flows")) {
                flows.add(flow(n, hosts, links));
            }
        }
        List<Topology.Workload> workloads = new ArrayList<>();
        if (top.containsKey("workloads")) {
            for (Node n : sequence(top.get("workloads"), "workloads")) {
                Topology.Workload w = workload(n, hosts, links, workloads.size());
                for (Topology.Workload other : workloads) {
                    if (other.name().equals(w.name())) {
                        throw error(n, "workload name '" + w.name() + "' is already used on line " + other.line());
                    }
                }
                workloads.add(w);
            }
        }
        Topology topology = new Topology(source, hosts, switches, links, flows, workloads);
        for (Topology.Switch s : switches.values()) {
            if (topology.ports(s.name()).isEmpty()) {
                throw new TopologyException(source, s.line(), "switch " + s.name() + " has no links");
            }
            topology.switchConfig(s.name());
        }
        return topology;
    }

    private static Topology.RoutingMode routing(String s) {
        return switch (s.trim().toLowerCase(Locale.ROOT)) {
            case "learning", "l2" -> Topology.RoutingMode.LEARNING;
            case "ecmp" -> Topology.RoutingMode.ECMP;
            case "spray" -> Topology.RoutingMode.SPRAY;
            default -> throw new IllegalArgumentException("must be learning, ecmp or spray, got '" + s + "'");
        };
    }

    /**
     * L2 learning floods unknown destinations out of every port, so a loop of learning switches carries a flooded
     * frame around forever: refused, naming the loop (the first link that closes one).
     */
    private void refuseLearningLoops(Map<String, Topology.Switch> switches, List<Topology.Link> links) {
        Map<String, List<String>> forest = new LinkedHashMap<>();
        Map<String, String> root = new LinkedHashMap<>();
        for (Topology.Link l : links) {
            Topology.Switch a = switches.get(l.a());
            Topology.Switch b = switches.get(l.b());
            if (a == null || b == null || a.routing() != Topology.RoutingMode.LEARNING
                || b.routing() != Topology.RoutingMode.LEARNING) {
                continue;
            }
            String ra = find(root, l.a());
            String rb = find(root, l.b());
            if (ra.equals(rb)) {
                List<String> loop = treePath(forest, l.b(), l.a());
                loop.add(l.b());
                throw new TopologyException(source, l.line(), "switches " + String.join(" -> ", loop)
                    + " form a loop, which L2 learning floods around forever: give them routing: ecmp (or spray)");
            }
            root.put(ra, rb);
            forest.computeIfAbsent(l.a(), k -> new ArrayList<>()).add(l.b());
            forest.computeIfAbsent(l.b(), k -> new ArrayList<>()).add(l.a());
        }
    }

    private static String find(Map<String, String> root, String x) {
        String r = x;
        while (root.containsKey(r) && !root.get(r).equals(r)) {
            r = root.get(r);
        }
        return r;
    }

    /** The path from {@code from} to {@code to} in a forest (they are known to be in one tree). */
    private static List<String> treePath(Map<String, List<String>> forest, String from, String to) {
        Map<String, String> parent = new LinkedHashMap<>();
        java.util.ArrayDeque<String> queue = new java.util.ArrayDeque<>();
        parent.put(from, from);
        queue.add(from);
        while (!queue.isEmpty() && !parent.containsKey(to)) {
            String u = queue.poll();
            for (String v : forest.getOrDefault(u, List.of())) {
                if (parent.putIfAbsent(v, u) == null) {
                    queue.add(v);
                }
            }
        }
        List<String> path = new ArrayList<>();
        for (String x = to; !x.equals(from); x = parent.get(x)) {
            path.add(x);
        }
        path.add(from);
        java.util.Collections.reverse(path);
        return path;
    }

    private static Topology.ImpairmentMode mode(String s) {
        return switch (s.trim().toLowerCase(Locale.ROOT)) {
            case "auto" -> Topology.ImpairmentMode.AUTO;
            case "switch" -> Topology.ImpairmentMode.SWITCH;
            case "kernel", "netem" -> Topology.ImpairmentMode.KERNEL;
            default -> throw new IllegalArgumentException("must be auto, switch or kernel, got '" + s + "'");
        };
    }

    private Topology.Flow flow(Node n, Map<String, Topology.Host> hosts, List<Topology.Link> links) {
        Map<String, Node> m = mapping(n, "a flow", FLOW);
        String from = scalar(require(m, "from", n), "from");
        String to = scalar(require(m, "to", n), "to");
        for (String h : List.of(from, to)) {
            if (!hosts.containsKey(h)) {
                throw error(n, "flow end '" + h + "' is not a host");
            }
            if (links.stream().noneMatch(l -> l.a().equals(h) || l.b().equals(h))) {
                throw error(n, "flow end '" + h + "' has no link");
            }
        }
        if (from.equals(to)) {
            throw error(n, "a flow needs two different hosts");
        }
        long rate = m.containsKey("rate") ? value(m.get("rate"), "rate", Units::rateBps) : 0;
        int size = m.containsKey("size") ? Math.toIntExact(value(m.get("size"), "size", Units::bytes)) : 0;
        if (m.containsKey("size") && (size < 64 || size > 9238)) {
            throw error(m.get("size"), "size: a frame is 64..9238 bytes, got " + size);
        }
        int priority = m.containsKey("priority") ? priority(m.get("priority"), "priority") : -1;
        return new Topology.Flow(from, to, rate, size, priority, line(n));
    }

    private Topology.Workload workload(Node n, Map<String, Topology.Host> hosts, List<Topology.Link> links, int index) {
        Map<String, Node> m = mapping(n, "a workload", WORKLOAD);
        String kind = value(require(m, "kind", n), "kind", s -> {
            String k = s.trim().toLowerCase(Locale.ROOT);
            if (!Set.of("write-bw", "read-bw", "send-bw").contains(k)) {
                throw new IllegalArgumentException("expected write-bw, read-bw or send-bw, got '" + s + "'");
            }
            return k;
        });
        String from = scalar(require(m, "from", n), "from");
        String to = scalar(require(m, "to", n), "to");
        for (String h : List.of(from, to)) {
            if (!hosts.containsKey(h)) {
                throw error(n, "workload end '" + h + "' is not a host");
            }
            if (links.stream().noneMatch(l -> l.a().equals(h) || l.b().equals(h))) {
                throw error(n, "workload end '" + h + "' has no link");
            }
        }
        if (from.equals(to)) {
            throw error(n, "a workload needs two different hosts");
        }
        int pathMtu = m.containsKey("mtu") ? value(m.get("mtu"), "mtu", Integer::parseInt) : 1024;
        for (String h : List.of(from, to)) {
            Topology.Link l = links.stream().filter(x -> x.a().equals(h) || x.b().equals(h)).findFirst().orElseThrow();
            if (pathMtu + ROCE2_HEADERS > l.mtu()) {
                throw error(m.containsKey("mtu") ? m.get("mtu") : n, "mtu: a path MTU of " + pathMtu + " needs a link MTU of "
                    + (pathMtu + ROCE2_HEADERS) + ", the link of " + h + " (line " + l.line() + ") has " + l.mtu());
            }
        }
        String name = m.containsKey("name") ? scalar(m.get("name"), "name") : from + "->" + to + "#" + (index + 1);
        long size = m.containsKey("size") ? value(m.get("size"), "size", Units::bytes) : 65_536;
        if (size < 1 || size > (1 << 30)) {
            throw error(m.get("size"), "size: must be 1 byte..1 GiB, got " + size);
        }
        String qp = m.containsKey("qp") ? value(m.get("qp"), "qp", s -> {
            String q = s.trim().toLowerCase(Locale.ROOT);
            if (!q.equals("rc") && !q.equals("uc")) {
                throw new IllegalArgumentException("expected rc or uc, got '" + s + "'");
            }
            return q;
        }) : "rc";
        if (qp.equals("uc") && kind.equals("read-bw")) {
            throw error(m.get("qp"), "qp: uc has no READ");
        }
        String reliability = m.containsKey("reliability") ? scalar(m.get("reliability"), "reliability") : "go-back-n";
        String cc = m.containsKey("cc") ? scalar(m.get("cc"), "cc") : "none";
        try {
            org.urdma.transport.recovery.LossRecovery.named(reliability);
        } catch (IllegalArgumentException e) {
            throw error(m.get("reliability"), e.getMessage());
        }
        try {
            org.urdma.transport.rate.RateControl.named(cc);
        } catch (IllegalArgumentException e) {
            throw error(m.get("cc"), e.getMessage());
        }
        int depth = m.containsKey("depth") ? value(m.get("depth"), "depth", Integer::parseInt) : 4;
        if (depth < 1 || depth > 4096) {
            throw error(m.get("depth"), "depth: must be 1..4096, got " + depth);
        }
        int mtu = pathMtu;
        if (Integer.bitCount(mtu) != 1 || mtu < 256 || mtu > 4096) {
            throw error(m.get("mtu"), "mtu: a path MTU is 256, 512, 1024, 2048 or 4096, got " + mtu);
        }
        long start = m.containsKey("start") ? value(m.get("start"), "start", Units::nanos) : 0;
        long stop = m.containsKey("stop") ? value(m.get("stop"), "stop", Units::nanos) : Long.MAX_VALUE;
        long messages = m.containsKey("messages") ? value(m.get("messages"), "messages", Long::parseLong) : 0;
        if (m.containsKey("messages") && messages < 1) {
            throw error(m.get("messages"), "messages: must be >= 1, got " + messages);
        }
        if (!m.containsKey("stop") && !m.containsKey("messages")) {
            throw error(n, "a workload needs stop (a time) or messages (a count), or it never ends");
        }
        if (stop <= start) {
            throw error(m.get("stop"), "stop: must be after start");
        }
        return new Topology.Workload(name, kind, from, to, (int) size, qp, reliability, cc, depth, mtu, start, stop,
            messages, line(n));
    }

    private void claim(Map<String, Integer> names, String name, Node n) {
        Integer previous = names.put(name, line(n));
        if (previous != null) {
            throw error(n, "name '" + name + "' is already used on line " + previous);
        }
    }

    private Topology.Host host(Node n, int index) {
        Map<String, Node> m = mapping(n, "a host", HOST);
        String name = name(m, n);
        long mac = m.containsKey("mac") ? value(m.get("mac"), "mac", Mac::parse) : 0x02_00_00_00_00_00L | (index + 1);
        if (Mac.isGroup(mac)) {
            throw error(m.get("mac"), "host MAC must be unicast");
        }
        String ip = m.containsKey("ip") ? value(m.get("ip"), "ip", TopologyParser::checkCidr) : "10.0.0." + (index + 1) + "/24";
        int priority = m.containsKey("priority") ? priority(m.get("priority"), "priority") : 0;
        return new Topology.Host(name, mac, ip, priority, line(n));
    }

    private static String checkCidr(String text) {
        String[] parts = text.split("/");
        String[] octets = parts[0].split("\\.");
        boolean ok = parts.length <= 2 && octets.length == 4;
        for (int i = 0; ok && i < 4; i++) {
            ok = octets[i].matches("[0-9]{1,3}") && Integer.parseInt(octets[i]) <= 255;
        }
        if (ok && parts.length == 2) {
            ok = parts[1].matches("[0-9]{1,2}") && Integer.parseInt(parts[1]) <= 32;
        }
        if (!ok) {
            throw new IllegalArgumentException("expected an IPv4 address like 10.0.0.1/24, got '" + text + "'");
        }
        return parts.length == 2 ? text : text + "/24";
    }

    private Topology.Switch switchSpec(Node n, int index, Topology.RoutingMode defaultRouting) {
        Map<String, Node> m = mapping(n, "a switch", SWITCH);
        String name = name(m, n);
        Topology.RoutingMode routing = m.containsKey("routing")
            ? value(m.get("routing"), "routing", TopologyParser::routing) : defaultRouting;
        long ecmpSeed = m.containsKey("ecmpSeed") ? value(m.get("ecmpSeed"), "ecmpSeed", s -> Long.decode(s.trim())) : index;
        double headroomDelays = m.containsKey("headroomDelays")
            ? value(m.get("headroomDelays"), "headroomDelays", TopologyParser::positive) : 0;
        List<Consumer<SwitchConfig>> sw = new ArrayList<>();
        List<Consumer<PortConfig>> port = new ArrayList<>();
        int pfcMask = 0;
        for (Map.Entry<String, Node> e : m.entrySet()) {
            Node v = e.getValue();
            switch (e.getKey()) {
                case "name", "routing", "ecmpSeed", "headroomDelays" -> { }
                case "buffer" -> sw.add(c -> c.bufferBytes(value(v, "buffer", Units::bytes)));
                case "cell" -> sw.add(c -> c.cellBytes(Math.toIntExact(value(v, "cell", Units::bytes))));
                case "reserve" -> sw.add(c -> c.reserveBytes(value(v, "reserve", Units::bytes)));
                case "alpha" -> sw.add(c -> c.dtAlpha(value(v, "alpha", Double::parseDouble)));
                case "resumeOffset" -> sw.add(c -> c.resumeOffsetBytes(value(v, "resumeOffset", Units::bytes)));
                case "pauseQuanta" -> sw.add(c -> c.pauseQuanta(value(v, "pauseQuanta", Integer::parseInt)));
                case "macAging" -> sw.add(c -> c.macAgingNs(value(v, "macAging", Units::nanos)));
                case "macTableSize" -> sw.add(c -> c.macTableSize(value(v, "macTableSize", Integer::parseInt)));
                case "forwarding" -> sw.add(c -> c.forwarding(value(v, "forwarding", TopologyParser::forwarding)));
                case "pipelineDelay" -> sw.add(c -> c.pipelineDelayNs(value(v, "pipelineDelay", Units::nanos)));
                case "cutThroughBytes" -> sw.add(c -> c.cutThroughBytes(value(v, "cutThroughBytes", Integer::parseInt)));
                case "watchdog" -> sw.add(watchdog(v));
                case "pfc" -> {
                    int mask = priorities(v, "pfc");
                    pfcMask = mask;
                    port.add(p -> p.pfcMask(mask));
                }
                case "ecn" -> port.add(ecn(v));
                case "classify" -> port.add(p -> p.classify(value(v, "classify", s -> ClassifyMode.valueOf(upper(s)))));
                case "defaultPriority" -> port.add(p -> p.defaultPriority(priority(v, "defaultPriority")));
                case "strict" -> {
                    int mask = priorities(v, "strict");
                    port.add(p -> p.strictMask(mask));
                }
                case "weights" -> {
                    for (Map.Entry<String, Node> w : mapping(v, "weights", null).entrySet()) {
                        int prio = value(keyOf(v, w.getKey()), "weights priority", TopologyParser::priorityText);
                        int weight = value(w.getValue(), "weight", Integer::parseInt);
                        port.add(p -> p.weight(prio, weight));
                    }
                }
                case "headroom" -> port.add(p -> p.headroomBytes(value(v, "headroom", Units::bytes)));
                case "intStamp" -> {
                    boolean on = value(v, "intStamp", TopologyParser::bool);
                    port.add(p -> p.intStamp(on));
                }
                case "format" -> port.add(p -> p.format(value(v, "format", s -> PortFormat.valueOf(upper(s)))));
                case "dscp" -> {
                    for (Map.Entry<String, Node> d : mapping(v, "dscp", null).entrySet()) {
                        int dscp = value(keyOf(v, d.getKey()), "dscp", Integer::parseInt);
                        int prio = priority(d.getValue(), "dscp priority");
                        port.add(p -> p.dscp(dscp, prio));
                    }
                }
                default -> throw error(v, "unknown switch key " + e.getKey());
            }
        }
        Consumer<SwitchConfig> settings = c -> sw.forEach(x -> x.accept(c));
        Consumer<PortConfig> portSettings = p -> port.forEach(x -> x.accept(p));
        return new Topology.Switch(name, index, settings, portSettings, pfcMask, routing, ecmpSeed, headroomDelays, line(n));
    }

    private Consumer<SwitchConfig> watchdog(Node v) {
        Map<String, Node> w = mapping(v, "watchdog", WATCHDOG);
        long detection = value(require(w, "detection", v), "detection", Units::nanos);
        long restoration = value(require(w, "restoration", v), "restoration", Units::nanos);
        WatchdogAction action = w.containsKey("action")
            ? value(w.get("action"), "action", s -> WatchdogAction.valueOf(upper(s))) : WatchdogAction.DROP;
        return c -> c.watchdog(detection, restoration, action);
    }

    private Consumer<PortConfig> ecn(Node v) {
        Map<String, Node> e = mapping(v, "ecn", ECN);
        int mask = priorities(require(e, "priorities", v), "ecn priorities");
        long kmin = value(require(e, "kmin", v), "kmin", Units::bytes);
        long kmax = value(require(e, "kmax", v), "kmax", Units::bytes);
        double pmax = value(require(e, "pmax", v), "pmax", Units::fraction);
        if (kmax <= kmin) {
            throw error(v, "ecn: kmax must be above kmin");
        }
        if (e.containsKey("per")) {
            // thresholds given for a port of this rate, scaled to each port's (HPCC's run.py maps kmin/kmax per rate)
            long per = value(e.get("per"), "per", Units::rateBps);
            return p -> p.ecn(mask, Math.round((double) kmin * p.rateBps() / per), Math.round((double) kmax * p.rateBps() / per),
                pmax);
        }
        return p -> p.ecn(mask, kmin, kmax, pmax);
    }

    private Topology.Link link(Node n, Topology.ImpairmentMode defaultMode) {
        Map<String, Node> m = mapping(n, "a link", LINK);
        List<Node> ends = sequence(require(m, "endpoints", n), "endpoints");
        if (ends.size() != 2) {
            throw error(m.get("endpoints"), "endpoints: a link has exactly two ends");
        }
        String a = scalar(ends.get(0), "endpoint");
        String b = scalar(ends.get(1), "endpoint");
        long rate = value(require(m, "rate", n), "rate", Units::rateBps);
        int mtu = m.containsKey("mtu") ? value(m.get("mtu"), "mtu", Integer::parseInt) : 1500;
        if (mtu < 68 || mtu > 9216) {
            throw error(m.get("mtu"), "mtu must be 68..9216");
        }
        long delay = m.containsKey("delay") ? value(m.get("delay"), "delay", Units::nanos) : 0;
        ImpairmentConfig both = m.containsKey("impair") ? impairment(m.get("impair")) : null;
        ImpairmentConfig ab = m.containsKey("impairAtoB") ? impairment(m.get("impairAtoB")) : both;
        ImpairmentConfig ba = m.containsKey("impairBtoA") ? impairment(m.get("impairBtoA")) : both;
        if (both != null && (m.containsKey("impairAtoB") || m.containsKey("impairBtoA"))) {
            throw error(m.get("impair"), "use either impair (both directions) or impairAtoB/impairBtoA");
        }
        Topology.ImpairmentMode mode = m.containsKey("impairment")
            ? value(m.get("impairment"), "impairment", TopologyParser::mode) : defaultMode;
        PsnPattern drop = m.containsKey("dropPsns") ? dropPsns(m.get("dropPsns")) : null;
        return new Topology.Link(a, b, rate, mtu, delay, ab, ba, mode, drop, line(n));
    }

    /** {@code "2,4-5"} (every QP) or {@code {qp: 0x12, psns: "2,4-5"}}; psns also as a list. */
    private PsnPattern dropPsns(Node n) {
        Node psns = n;
        int qp = -1;
        if (n instanceof MappingNode) {
            Map<String, Node> m = mapping(n, "dropPsns", DROP_PSNS);
            psns = require(m, "psns", n);
            if (m.containsKey("qp")) {
                qp = value(m.get("qp"), "dropPsns qp", s -> {
                    int v = Integer.decode(s.trim());
                    if (v < 0 || v > 0xFFFFFF) throw new IllegalArgumentException("must be 0..0xFFFFFF, was " + s.trim());
                    return v;
                });
            }
        }
        String text;
        if (psns instanceof SequenceNode) {
            List<String> parts = new ArrayList<>();
            for (Node p : sequence(psns, "psns")) parts.add(scalar(p, "psns"));
            text = String.join(",", parts);
        } else {
            text = scalar(psns, "psns");
        }
        try {
            return PsnPattern.of(qp, text);
        } catch (IllegalArgumentException e) {
            throw error(psns, "dropPsns " + e.getMessage());
        }
    }

    private ImpairmentConfig impairment(Node n) {
        Map<String, Node> m = mapping(n, "an impairment", IMPAIR);
        ImpairmentConfig c = ImpairmentConfig.none();
        long delay = m.containsKey("delay") ? value(m.get("delay"), "delay", Units::nanos) : 0;
        long jitter = m.containsKey("jitter") ? value(m.get("jitter"), "jitter", Units::nanos) : 0;
        c.delay(delay, jitter, fraction(m, "delayCorrelation"));
        if (m.containsKey("loss")) {
            c.lossRandom(fraction(m, "loss"), fraction(m, "lossCorrelation"));
        }
        if (m.containsKey("gemodel")) {
            if (m.containsKey("loss")) {
                throw error(m.get("gemodel"), "use one loss model: loss, gemodel or state");
            }
            Map<String, Node> g = mapping(m.get("gemodel"), "gemodel", GEMODEL);
            double p = value(require(g, "p", n), "p", Units::fraction);
            double r = g.containsKey("r") ? fraction(g, "r") : 1 - p;
            double bad = g.containsKey("lossInBad") ? fraction(g, "lossInBad") : 1;
            c.lossGilbertElliott(p, r, bad, fraction(g, "lossInGood"));
        }
        if (m.containsKey("state")) {
            if (m.containsKey("loss") || m.containsKey("gemodel")) {
                throw error(m.get("state"), "use one loss model: loss, gemodel or state");
            }
            Map<String, Node> s = mapping(m.get("state"), "state", STATE);
            double p13 = value(require(s, "p13", n), "p13", Units::fraction);
            double p31 = s.containsKey("p31") ? fraction(s, "p31") : 1 - p13;
            c.lossFourState(p13, p31, fraction(s, "p32"), fraction(s, "p23"), fraction(s, "p14"));
        }
        c.duplicate(fraction(m, "duplicate"), fraction(m, "duplicateCorrelation"));
        if (m.containsKey("reorder")) {
            int gap = m.containsKey("gap") ? value(m.get("gap"), "gap", Integer::parseInt) : 0;
            c.reorder(fraction(m, "reorder"), fraction(m, "reorderCorrelation"), gap);
        }
        c.corrupt(fraction(m, "corrupt"), fraction(m, "corruptCorrelation"));
        if (m.containsKey("rate")) {
            c.rateBps(value(m.get("rate"), "rate", Units::rateBps));
        }
        try {
            new org.urdma.transport.impair.Impairment(c, new java.util.SplittableRandom(0));
        } catch (IllegalArgumentException e) {
            throw error(n, e.getMessage());
        }
        return c;
    }

    // ------------------------------------------------------------------ node helpers

    private double fraction(Map<String, Node> m, String key) {
        return m.containsKey(key) ? value(m.get(key), key, Units::fraction) : 0;
    }

    private static ForwardingMode forwarding(String s) {
        return switch (s.toLowerCase(Locale.ROOT)) {
            case "store-and-forward", "store_and_forward" -> ForwardingMode.STORE_AND_FORWARD;
            case "cut-through", "cut_through" -> ForwardingMode.CUT_THROUGH;
            default -> throw new IllegalArgumentException("forwarding must be store-and-forward or cut-through, got '" + s + "'");
        };
    }

    private static double positive(String s) {
        double v = Double.parseDouble(s.trim());
        if (!(v > 0) || v > 1000) {
            throw new IllegalArgumentException("must be above 0 (and at most 1000), got '" + s + "'");
        }
        return v;
    }

    private static boolean bool(String s) {
        String t = s.trim();
        if (t.equalsIgnoreCase("true")) {
            return true;
        }
        if (t.equalsIgnoreCase("false")) {
            return false;
        }
        throw new IllegalArgumentException("must be true or false, got '" + s + "'");
    }

    private static String upper(String s) {
        return s.trim().toUpperCase(Locale.ROOT).replace('-', '_');
    }

    private static int priorityText(String s) {
        int p = Integer.parseInt(s.trim());
        if (p < 0 || p > 7) {
            throw new IllegalArgumentException("priority must be 0..7, got " + p);
        }
        return p;
    }

    private int priority(Node n, String what) {
        return value(n, what, TopologyParser::priorityText);
    }

    private int priorities(Node n, String what) {
        int mask = 0;
        for (Node p : sequence(n, what)) {
            mask |= 1 << priority(p, what);
        }
        return mask;
    }

    private String name(Map<String, Node> m, Node n) {
        String name = scalar(require(m, "name", n), "name");
        if (!name.matches("[A-Za-z][A-Za-z0-9_-]{0,14}")) {
            throw error(m.get("name"), "name '" + name + "' must start with a letter and use letters, digits, - or _ (max 15)");
        }
        return name;
    }

    private <T> T value(Node n, String what, Function<String, T> convert) {
        String text = scalar(n, what);
        try {
            return convert.apply(text);
        } catch (IllegalArgumentException e) {
            String detail = e instanceof NumberFormatException ? "not a number: '" + text + "'" : e.getMessage();
            throw error(n, what + ": " + detail);
        }
    }

    private String scalar(Node n, String what) {
        if (!(n instanceof ScalarNode s)) {
            throw error(n, what + " must be a single value");
        }
        return s.getValue();
    }

    private List<Node> sequence(Node n, String what) {
        if (!(n instanceof SequenceNode s)) {
            throw error(n, what + " must be a list");
        }
        return s.getValue();
    }

    /** Keys in file order; {@code allowed} null means any key. */
    private Map<String, Node> mapping(Node n, String what, Set<String> allowed) {
        if (!(n instanceof MappingNode mn)) {
            throw error(n, what + " must be a mapping of keys to values");
        }
        Map<String, Node> out = new LinkedHashMap<>();
        for (NodeTuple t : mn.getValue()) {
            String key = scalar(t.getKeyNode(), "a key");
            if (allowed != null && !allowed.contains(key)) {
                throw error(t.getKeyNode(), "unknown key '" + key + "' in " + what + " (known: " + String.join(", ",
                    allowed.stream().sorted().toList()) + ")");
            }
            if (out.put(key, t.getValueNode()) != null) {
                throw error(t.getKeyNode(), "key '" + key + "' given twice");
            }
        }
        return out;
    }

    /** The key node of an entry (for errors about keys such as DSCP values). */
    private Node keyOf(Node mapping, String key) {
        for (NodeTuple t : ((MappingNode) mapping).getValue()) {
            if (t.getKeyNode() instanceof ScalarNode s && s.getValue().equals(key)) {
                return t.getKeyNode();
            }
        }
        return mapping;
    }

    private Node require(Map<String, Node> m, String key, Node owner) {
        Node n = m.get(key);
        if (n == null) {
            throw error(owner, "missing required key '" + key + "'");
        }
        return n;
    }

    private int line(Node n) {
        return n.getStartMark().map(Mark::getLine).orElse(-1) + 1;
    }

    private TopologyException error(Node n, String message) {
        return new TopologyException(source, line(n), message);
    }
}
