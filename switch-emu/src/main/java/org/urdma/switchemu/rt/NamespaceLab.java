package org.urdma.switchemu.rt;

import org.agrona.concurrent.AgentRunner;
import org.agrona.concurrent.BackoffIdleStrategy;
import org.agrona.concurrent.SystemNanoClock;
import org.urdma.nativeio.netns.Netns;
import org.urdma.switchemu.capture.SwitchCapture;
import org.urdma.switchemu.frame.Mac;
import org.urdma.switchemu.impair.Impairment;
import org.urdma.switchemu.impair.ImpairmentConfig;
import org.urdma.switchemu.topo.NetemProbe;
import org.urdma.switchemu.topo.Topology;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;

/**
 * A topology brought up in real network namespaces, in this process: a namespace per host (interface
 * {@code eth0} with the host's MAC and address) and per switch (interfaces {@code p0, p1, …} in link
 * order), veth pairs for the links, and one real-time switch agent per switch over AF_PACKET ports, with
 * the links' impairment applied by the switch (this kernel has no sch_netem). {@link #close()} stops the
 * agents and removes everything it made, also after a failed start.
 */
public final class NamespaceLab implements AutoCloseable {
    private final org.urdma.nativeio.netns.Topology net;
    private final Map<String, String> namespaces = new LinkedHashMap<>();
    private final Map<String, RealTimeSwitch> switches = new LinkedHashMap<>();
    private final List<AfPacketPort> ports = new ArrayList<>();
    private final List<AgentRunner> runners = new ArrayList<>();
    private final List<SwitchCapture> captures = new ArrayList<>();
    private final NetemProbe.Result netem = NetemProbe.probe();

    private NamespaceLab(org.urdma.nativeio.netns.Topology net) {
        this.net = net;
    }

    /** Brings {@code topology} up; {@code pcapDirectory} (may be null) gets one pcap per switch port. */
    public static NamespaceLab up(Topology topology, long seed, Path pcapDirectory) throws IOException {
        NamespaceLab lab = new NamespaceLab(org.urdma.nativeio.netns.Topology.create());
        try {
            lab.build(topology, seed, pcapDirectory);
            return lab;
        } catch (RuntimeException | IOException e) {
            lab.close();
            throw e;
        }
    }

    private void build(Topology topology, long seed, Path pcapDirectory) throws IOException {
        for (String name : topology.hosts().keySet()) {
            namespaces.put(name, net.namespace(name));
        }
        for (String name : topology.switches().keySet()) {
            namespaces.put(name, net.namespace(name));
        }
        for (String ns : namespaces.values()) {
            net.disableIpv6(ns);
        }
        Map<Topology.Link, String[]> ifnames = new LinkedHashMap<>();
        for (String s : topology.switches().keySet()) {
            for (Topology.Port p : topology.ports(s)) {
                String[] names = ifnames.computeIfAbsent(p.link(), k -> new String[2]);
                names[p.link().a().equals(s) ? 0 : 1] = "p" + p.port();
            }
        }
        for (Topology.Link l : topology.links()) {
            String[] names = ifnames.get(l);
            String a = names[0] != null ? names[0] : "eth0";
            String b = names[1] != null ? names[1] : "eth0";
            net.veth(namespaces.get(l.a()), a, namespaces.get(l.b()), b,
                org.urdma.nativeio.netns.Topology.LinkOptions.mtu(l.mtu()).withMacs(mac(topology, l.a(), a, names[0]),
                    mac(topology, l.b(), b, names[1])));
        }
        for (Topology.Host h : topology.hosts().values()) {
            net.addAddress(namespaces.get(h.name()), "eth0", h.ipv4());
        }
        SplittableRandom seeds = new SplittableRandom(seed);
        for (Topology.Switch s : topology.switches().values()) {
            List<Topology.Port> swPorts = topology.ports(s.name());
            FramePort[] fp = new FramePort[swPorts.size()];
            Impairment[] ingress = new Impairment[fp.length];
            Impairment[] egress = new Impairment[fp.length];
            for (Topology.Port p : swPorts) {
                AfPacketPort port = call(namespaces.get(s.name()), () -> AfPacketPort.open("p" + p.port(), p.link().mtu()));
                ports.add(port);
                fp[p.port()] = port;
                boolean isA = p.link().a().equals(s.name());
                ImpairmentConfig out = isA ? p.link().aToB() : p.link().bToA();
                ImpairmentConfig in = isA ? p.link().bToA() : p.link().aToB();
                if (out != null && !out.isNone()) {
                    egress[p.port()] = new Impairment(out, new SplittableRandom(seeds.nextLong()));
                }
                // frames coming in are impaired here only if the far end is not a switch (which impairs them at its egress)
                if (in != null && !in.isNone() && !topology.switches().containsKey(p.peer())) {
                    ingress[p.port()] = new Impairment(in, new SplittableRandom(seeds.nextLong()));
                }
            }
            RealTimeSwitch sw = new RealTimeSwitch(s.name(), topology.switchConfig(s.name()), fp, ingress, egress,
                new SystemNanoClock(), seeds.nextLong(), 65_536);
            if (pcapDirectory != null) {
                SwitchCapture capture = new SwitchCapture(pcapDirectory, s.name(), fp.length,
                    System.currentTimeMillis() * 1_000_000L - System.nanoTime());
                captures.add(capture);
                sw.capture(capture);
            }
            switches.put(s.name(), sw);
        }
        for (RealTimeSwitch sw : switches.values()) {
            AgentRunner runner = new AgentRunner(new BackoffIdleStrategy(100, 10, TimeUnit.MICROSECONDS.toNanos(1),
                TimeUnit.MICROSECONDS.toNanos(50)), Throwable::printStackTrace, null, sw);
            runners.add(runner);
            AgentRunner.startOnThread(runner);
        }
    }

    private static String mac(Topology topology, String node, String ifname, String switchIfname) {
        Topology.Host h = topology.hosts().get(node);
        if (h != null) {
            return Mac.toString(h.mac());
        }
        return Mac.toString(Topology.portMac(topology.switches().get(node).index(), Integer.parseInt(switchIfname.substring(1))));
    }

    private static <T> T call(String ns, java.util.concurrent.Callable<T> action) {
        try {
            return Netns.call(ns, action);
        } catch (RuntimeException e) {
            throw e;
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    /** The real namespace name of a host or switch. */
    public String namespace(String node) {
        return namespaces.get(node);
    }

    public RealTimeSwitch switchAgent(String name) {
        return switches.get(name);
    }

    /** One line on how impairment is applied here. */
    public String impairmentSummary() {
        return "impairment: switch emulator (sch_netem " + netem.name().toLowerCase(java.util.Locale.ROOT) + ")";
    }

    @Override
    public void close() {
        for (AgentRunner r : runners) {
            r.close();
        }
        for (SwitchCapture c : captures) {
            c.close();
        }
        for (AfPacketPort p : ports) {
            p.close();
        }
        net.close();
    }
}
