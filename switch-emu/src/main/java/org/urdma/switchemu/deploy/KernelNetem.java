package org.urdma.switchemu.deploy;

import org.urdma.transport.impair.ImpairmentConfig;
import org.urdma.transport.impair.NetemArgs;
import org.urdma.switchemu.rt.RtSwitch;
import org.urdma.switchemu.topo.NetemProbe;
import org.urdma.switchemu.topo.Topology;
import org.urdma.switchemu.topo.TopologyException;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * Who impairs each impaired link of a topology ({@code impairment: auto|switch|kernel}, per link or for
 * the whole file), and for the links the kernel impairs, the {@code tc qdisc add dev IF root netem ...}
 * command for each direction: on the veth end the frames leave by ({@code eth0} of a host, {@code pN} of a
 * switch), in that node's namespace. {@code auto} takes the kernel where it has sch_netem, else the switch;
 * {@code kernel} without sch_netem is an error naming the link's line.
 */
public final class KernelNetem {
    /** One netem qdisc: run {@code command} in the namespace of {@code node}. */
    public record Qdisc(Topology.Link link, String node, String device, List<String> command) {
    }

    /** The decision: qdiscs to add, the links they cover, and one line per impaired link saying who impairs it. */
    public record Plan(List<Qdisc> qdiscs, Set<Topology.Link> kernelLinks, List<String> notes) {
        /** The lines (in the file) of the kernel-impaired links, for {@code urdma switch --netem-links}. */
        public List<Integer> kernelLines() {
            return kernelLinks.stream().map(Topology.Link::line).toList();
        }
    }

    private KernelNetem() {
    }

    public static Plan plan(Topology topology, NetemProbe.Result probe) {
        List<Qdisc> qdiscs = new ArrayList<>();
        Set<Topology.Link> kernel = new LinkedHashSet<>();
        List<String> notes = new ArrayList<>();
        boolean netem = probe != NetemProbe.Result.ABSENT;
        for (Topology.Link l : topology.links()) {
            if (!l.impaired()) {
                continue;
            }
            String what = "link " + l.a() + "-" + l.b() + " (line " + l.line() + ")";
            switch (l.mode()) {
                case SWITCH -> notes.add(what + ": switch stage (impairment: switch)");
                case AUTO -> {
                    if (netem) {
                        kernel.add(l);
                        notes.add(what + ": kernel tc netem (impairment: auto; sch_netem " + probe + ")");
                    } else {
                        notes.add(what + ": switch stage (impairment: auto; the kernel has no sch_netem)");
                    }
                }
                case KERNEL -> {
                    if (!netem) {
                        throw new TopologyException(topology.source(), l.line(), what + " asks for kernel impairment "
                            + "(impairment: kernel), but this kernel has no sch_netem (tc netem); use impairment: auto "
                            + "or switch to have the switch apply it");
                    }
                    kernel.add(l);
                    notes.add(what + ": kernel tc netem (impairment: kernel)");
                }
            }
        }
        for (Topology.Link l : kernel) {
            add(qdiscs, topology, l, l.a(), l.aToB());
            add(qdiscs, topology, l, l.b(), l.bToA());
        }
        return new Plan(qdiscs, kernel, notes);
    }

    private static void add(List<Qdisc> qdiscs, Topology topology, Topology.Link l, String from, ImpairmentConfig c) {
        if (c == null || c.isNone()) {
            return;
        }
        String device = device(topology, l, from);
        List<String> cmd = new ArrayList<>(List.of("tc", "qdisc", "add", "dev", device, "root", "netem"));
        cmd.addAll(NetemArgs.of(c));
        qdiscs.add(new Qdisc(l, from, device, List.copyOf(cmd)));
    }

    /** The interface of {@code node}'s end of {@code link} (as {@link NetworkBuilder} names it). */
    static String device(Topology topology, Topology.Link link, String node) {
        if (topology.hosts().containsKey(node)) {
            return NetworkBuilder.HOST_INTERFACE;
        }
        for (Topology.Port p : topology.ports(node)) {
            if (p.link() == link) {
                return RtSwitch.portInterface(p.port());
            }
        }
        throw new IllegalArgumentException(node + " is not an end of the link on line " + link.line());
    }

    /** The links whose file lines are given (what {@code urdma topo up} told a switch the kernel impairs). */
    public static Set<Topology.Link> linksAt(Topology topology, List<Integer> lines) {
        Set<Topology.Link> out = new LinkedHashSet<>();
        for (int line : lines) {
            Topology.Link found = topology.links().stream().filter(l -> l.line() == line).findFirst()
                .orElseThrow(() -> new IllegalArgumentException("--netem-links: no link on line " + line + " of "
                    + topology.source()));
            out.add(found);
        }
        return out;
    }

    /**
     * What a switch process run on its own impairs: everything but {@code kernelLinks}; a {@code kernel}
     * link not among them is an error (nobody would apply it).
     */
    public static Topology forSwitch(Topology topology, Set<Topology.Link> kernelLinks) {
        for (Topology.Link l : topology.links()) {
            if (l.impaired() && l.mode() == Topology.ImpairmentMode.KERNEL && !kernelLinks.contains(l)) {
                throw new TopologyException(topology.source(), l.line(), "link " + l.a() + "-" + l.b()
                    + " asks for kernel impairment (impairment: kernel); 'urdma topo up' applies tc netem and tells the "
                    + "switch (--netem-links); run it through topo up, or use impairment: auto or switch");
            }
        }
        return kernelLinks.isEmpty() ? topology : topology.withoutImpairment(kernelLinks);
    }
}
