package org.urdma.switchemu.rt;

import org.agrona.concurrent.AgentRunner;
import org.agrona.concurrent.BackoffIdleStrategy;
import org.agrona.concurrent.SystemNanoClock;
import org.urdma.nativeio.netns.Netns;
import org.urdma.switchemu.capture.SwitchCapture;
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
 * A topology brought up in real network namespaces, in this process: the {@link Fabric} (namespaces,
 * veths, MACs, addresses) and one real-time switch agent per switch over AF_PACKET ports, with the links'
 * impairment applied by the switch (this kernel has no sch_netem). {@link #close()} stops the agents and
 * removes everything it made, also after a failed start.
 */
public final class NamespaceLab implements AutoCloseable {
    private final Fabric fabric;
    private final Map<String, RealTimeSwitch> switches = new LinkedHashMap<>();
    private final List<AfPacketPort> ports = new ArrayList<>();
    private final List<AgentRunner> runners = new ArrayList<>();
    private final List<SwitchCapture> captures = new ArrayList<>();
    private final NetemProbe.Result netem = NetemProbe.probe();

    private NamespaceLab(Fabric fabric) {
        this.fabric = fabric;
    }

    /** Brings {@code topology} up; {@code pcapDirectory} (may be null) gets one pcap per switch port. */
    public static NamespaceLab up(Topology topology, long seed, Path pcapDirectory) throws IOException {
        NamespaceLab lab = new NamespaceLab(Fabric.create(topology));
        try {
            SplittableRandom seeds = new SplittableRandom(seed);
            for (Topology.Switch s : topology.switches().values()) {
                lab.startSwitch(topology, s.name(), seeds.nextLong(), pcapDirectory);
            }
            return lab;
        } catch (RuntimeException | IOException e) {
            lab.close();
            throw e;
        }
    }

    private void startSwitch(Topology topology, String name, long seed, Path pcapDirectory) throws IOException {
        RealTimeSwitch sw = realTimeSwitch(topology, name, fabric.namespace(name), seed, ports);
        if (pcapDirectory != null) {
            SwitchCapture capture = new SwitchCapture(pcapDirectory, name, topology.ports(name).size(),
                System.currentTimeMillis() * 1_000_000L - System.nanoTime());
            captures.add(capture);
            sw.capture(capture);
        }
        switches.put(name, sw);
        AgentRunner runner = new AgentRunner(new BackoffIdleStrategy(100, 10, TimeUnit.MICROSECONDS.toNanos(1),
            TimeUnit.MICROSECONDS.toNanos(50)), Throwable::printStackTrace, null, sw);
        runners.add(runner);
        AgentRunner.startOnThread(runner);
    }

    /**
     * A real-time switch for {@code name} over AF_PACKET ports {@code p0, p1, ...} opened in {@code namespace}
     * (added to {@code opened} so the caller can close them), with each link's impairment applied by the
     * switch: at its egress towards the link, and at its ingress for frames from a host.
     */
    public static RealTimeSwitch realTimeSwitch(Topology topology, String name, String namespace, long seed,
                                                List<AfPacketPort> opened) {
        SplittableRandom seeds = new SplittableRandom(seed);
        List<Topology.Port> swPorts = topology.ports(name);
        FramePort[] fp = new FramePort[swPorts.size()];
        Impairment[] ingress = new Impairment[fp.length];
        Impairment[] egress = new Impairment[fp.length];
        for (Topology.Port p : swPorts) {
            AfPacketPort port = call(namespace, () -> AfPacketPort.open(Fabric.ifname(p.port()), p.link().mtu()));
            opened.add(port);
            fp[p.port()] = port;
            boolean isA = p.link().a().equals(name);
            ImpairmentConfig out = isA ? p.link().aToB() : p.link().bToA();
            ImpairmentConfig in = isA ? p.link().bToA() : p.link().aToB();
            if (out != null && !out.isNone()) {
                egress[p.port()] = new Impairment(out, new SplittableRandom(seeds.nextLong()));
            }
            // frames from another switch were impaired at its egress already
            if (in != null && !in.isNone() && !topology.switches().containsKey(p.peer())) {
                ingress[p.port()] = new Impairment(in, new SplittableRandom(seeds.nextLong()));
            }
        }
        return new RealTimeSwitch(name, topology.switchConfig(name), fp, ingress, egress, new SystemNanoClock(),
            seeds.nextLong(), 65_536);
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

    /** The real namespace of a host or switch. */
    public String namespace(String node) {
        return fabric.namespace(node);
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
        fabric.close();
    }
}
