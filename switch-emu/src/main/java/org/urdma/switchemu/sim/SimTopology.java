package org.urdma.switchemu.sim;

import org.urdma.transport.impair.Impairment;
import org.urdma.transport.impair.ImpairmentConfig;
import org.urdma.switchemu.topo.Topology;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.SplittableRandom;

/**
 * A {@link Topology} instantiated in the simulator: hosts, switches (ports in link order) and links,
 * with each link's impairment applied at the switch end it passes (egress if it leaves a switch there,
 * ingress if it enters one). Seeds derive from one seed, so a run is reproducible.
 */
public final class SimTopology {
    public final Simulator sim;
    public final Map<String, SimHost> hosts = new LinkedHashMap<>();
    public final Map<String, SimSwitch> switches = new LinkedHashMap<>();

    public SimTopology(Topology topology, Simulator sim, long seed) {
        this.sim = sim;
        SplittableRandom seeds = new SplittableRandom(seed);
        for (Topology.Host h : topology.hosts().values()) {
            hosts.put(h.name(), new SimHost(sim, h.name(), h.mac()));
        }
        for (Topology.Switch s : topology.switches().values()) {
            switches.put(s.name(), new SimSwitch(sim, s.name(), topology.switchConfig(s.name()), seeds.nextLong()));
        }
        Map<Topology.Link, int[]> ports = new LinkedHashMap<>();
        for (String s : switches.keySet()) {
            for (Topology.Port p : topology.ports(s)) {
                int[] ends = ports.computeIfAbsent(p.link(), k -> new int[]{0, 0});
                ends[p.link().a().equals(s) ? 0 : 1] = p.port();
            }
        }
        for (Topology.Link l : topology.links()) {
            int[] ends = ports.get(l);
            SimNode a = node(l.a());
            SimNode b = node(l.b());
            SimLink link = new SimLink(sim, a, ends[0], b, ends[1], l.rateBps(), l.delayNs());
            attach(a, ends[0], link);
            attach(b, ends[1], link);
            impair(l.a(), ends[0], l.b(), ends[1], l.aToB(), seeds);
            impair(l.b(), ends[1], l.a(), ends[0], l.bToA(), seeds);
        }
    }

    private SimNode node(String name) {
        SimNode n = hosts.get(name);
        return n != null ? n : switches.get(name);
    }

    private void attach(SimNode n, int port, SimLink link) {
        if (n instanceof SimHost h) {
            h.attach(link);
        } else {
            ((SimSwitch) n).attach(port, link);
        }
    }

    /** Frames from {@code from} to {@code to}: impair at the sending switch's egress, else the receiving switch's ingress. */
    private void impair(String from, int fromPort, String to, int toPort, ImpairmentConfig config, SplittableRandom seeds) {
        if (config == null || config.isNone()) {
            return;
        }
        Impairment imp = new Impairment(config, new SplittableRandom(seeds.nextLong()));
        if (switches.containsKey(from)) {
            switches.get(from).impairEgress(fromPort, imp);
        } else {
            switches.get(to).impairIngress(toPort, imp);
        }
    }
}
