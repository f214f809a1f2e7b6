package org.urdma.switchemu.deploy;

import org.urdma.nativeio.netns.Netns;
import org.urdma.switchemu.rt.CounterReport;
import org.urdma.switchemu.rt.RtOptions;
import org.urdma.switchemu.rt.RtSwitch;
import org.urdma.switchemu.rt.RtSwitchRunner;
import org.urdma.switchemu.topo.NetemProbe;
import org.urdma.switchemu.topo.Topology;

import org.urdma.switchemu.core.DropReason;
import org.urdma.switchemu.core.SwitchCounters;
import org.urdma.transport.counters.CountersFile;
import org.urdma.switchemu.stat.StatReport;

import java.io.PrintStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.StringJoiner;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * {@code urdma switch FILE --name SW}: one switch of a topology, run in the foreground on the AF_PACKET
 * ports {@code p0..pN} of the current (or given) network namespace until a duration passes or the process
 * is told to stop (SIGINT/SIGTERM); then the per-port counters are printed. Prints a line starting with
 * {@link #READY} once its ports are open ({@code urdma topo up} waits for it).
 */
public final class ForegroundSwitch {
    public static final String READY = "switch ready";
    /** How often the driver copies its counters into the counters file. */
    static final long PUBLISH_PERIOD_NS = 100_000_000L;

    private ForegroundSwitch() {
    }

    /** The switch to run: {@code name}, or the only switch of the file. */
    public static String pick(Topology topology, String name) {
        if (name != null) {
            if (!topology.switches().containsKey(name)) {
                throw new IllegalArgumentException("no switch named '" + name + "' in the topology (switches: "
                    + String.join(", ", topology.switches().keySet()) + ")");
            }
            return name;
        }
        if (topology.switches().size() != 1) {
            throw new IllegalArgumentException("the topology has " + topology.switches().size()
                + " switches; choose one with --name (" + String.join(", ", topology.switches().keySet()) + ")");
        }
        return topology.switches().keySet().iterator().next();
    }

    /**
     * What provides impairment, as printed: the switch stage (and why), the kernel's tc netem for the
     * links {@code urdma topo up} gave it ({@code kernelLinks}), or nothing.
     */
    public static String impairmentNote(Topology topology, RtOptions options, Set<Topology.Link> kernelLinks) {
        boolean any = topology.links().stream().anyMatch(Topology.Link::impaired);
        if (!any) {
            return "none configured";
        }
        NetemProbe.Result netem = NetemProbe.probe();
        if (!options.impair()) {
            return "off in this switch (--no-impair; kernel sch_netem: " + netem + ")";
        }
        String kernel = kernelLinks.isEmpty() ? "" : "; tc netem (kernel) on the links of lines "
            + kernelLinks.stream().map(l -> Integer.toString(l.line())).collect(java.util.stream.Collectors.joining(","));
        boolean inSwitch = topology.links().stream().anyMatch(l -> l.impaired() && !kernelLinks.contains(l));
        return (inSwitch ? "switch stage (netem semantics, seeded" : "none in the switch (") + "; kernel sch_netem: " + netem
            + (netem == NetemProbe.Result.ABSENT ? ", so tc netem cannot be used" : "") + kernel + ")";
    }

    public static String impairmentNote(Topology topology, RtOptions options) {
        return impairmentNote(topology, options, Set.of());
    }

    /** Counters of a switch of {@link SwitchCounters}' layout: per port, a margin for counters added later. */
    public static int counterCapacity(int ports) {
        return ports * 2 * (8 + DropReason.values().length + 8 * 8);
    }

    /** Description lines of a counters file: free text, then the port peers {@code urdma stat} shows. */
    public static String describe(String headline, String switchName, List<String> peers) {
        return headline + "\n" + StatReport.portsLine(switchName, peers);
    }

    /**
     * Runs the switch; returns when {@code durationNs} (0 = until stopped) has passed. {@code netns} null
     * opens the ports in this process's namespace.
     */
    public static void run(Topology topology, String name, RtOptions options, String netns, long durationNs,
                           PrintStream out) throws Exception {
        run(topology, name, options, netns, durationNs, out, Set.of(), null);
    }

    /**
     * As above; the links in {@code kernelLinks} are impaired by tc netem (not by the switch), and the
     * counters are published live in {@code countersFile} (null: not published) for {@code urdma stat}.
     */
    public static void run(Topology file, String name, RtOptions options, String netns, long durationNs,
                           PrintStream out, Set<Topology.Link> kernelLinks, Path countersFile) throws Exception {
        Topology topology = KernelNetem.forSwitch(file, kernelLinks);
        String note = impairmentNote(file, options, kernelLinks);
        RtSwitch sw = netns == null
            ? RtSwitch.fromTopology(topology, name, options)
            : Netns.call(netns, () -> RtSwitch.fromTopology(topology, name, options));
        CountersFile counters = null;
        if (countersFile != null) {
            List<String> peers = new ArrayList<>();
            for (int i = 0; i < sw.portCount(); i++) {
                peers.add(sw.port(i).peer() == null ? "?" : sw.port(i).peer());
            }
            try {
                counters = CountersFile.create(countersFile, counterCapacity(sw.portCount()),
                    describe("switch " + name + " of " + file.source() + " on AF_PACKET ports"
                        + (netns == null ? "" : " in namespace " + netns), name, peers));
                sw.publish(new SwitchCounters(name, sw.core(), counters.manager()), PUBLISH_PERIOD_NS);
                counters.running();
            } catch (RuntimeException e) {
                sw.onClose();
                if (counters != null) {
                    counters.close();
                }
                throw e;
            }
        }
        CountersFile published = counters;
        RtSwitchRunner runner = RtSwitchRunner.start(sw);
        CountDownLatch stopped = new CountDownLatch(1);
        Object lock = new Object();
        boolean[] reported = {false};
        Runnable finish = () -> {
            synchronized (lock) {
                if (reported[0]) {
                    return;
                }
                reported[0] = true;
                runner.close();
                if (published != null) {
                    published.close();
                }
                out.print(CounterReport.format(sw, note));
                if (runner.errors() > 0) {
                    out.println("driver errors: " + runner.errors());
                }
                out.flush();
                stopped.countDown();
            }
        };
        Thread hook = new Thread(finish, "switch-" + name + "-stop");
        Runtime.getRuntime().addShutdownHook(hook);
        StringJoiner ports = new StringJoiner(" ");
        for (int i = 0; i < sw.portCount(); i++) {
            ports.add(sw.port(i).name() + "->" + sw.port(i).peer());
        }
        out.println(READY + ": " + name + " pid=" + ProcessHandle.current().pid() + " ports: " + ports + "; impairment: "
            + note);
        if (published != null) {
            out.println("live counters: " + published.path() + " (urdma stat --name " + name + ")");
        }
        out.flush();
        long end = durationNs > 0 ? System.nanoTime() + durationNs : Long.MAX_VALUE;
        // wake once a second to show we live (urdma stat tells a killed switch from a running one)
        while (stopped.getCount() > 0 && System.nanoTime() < end) {
            stopped.await(Math.min(1_000_000_000L, end - System.nanoTime()), TimeUnit.NANOSECONDS);
            synchronized (lock) {
                if (published != null && !reported[0]) {
                    published.heartbeat();
                }
            }
        }
        finish.run();
        try {
            Runtime.getRuntime().removeShutdownHook(hook);
        } catch (IllegalStateException shuttingDown) {
            // the hook is running or ran: it reported
        }
    }
}
