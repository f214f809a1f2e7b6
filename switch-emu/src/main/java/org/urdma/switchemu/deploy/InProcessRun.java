package org.urdma.switchemu.deploy;

import org.urdma.switchemu.capture.SwitchCapture;
import org.urdma.switchemu.core.SwitchCounters;
import org.urdma.switchemu.rt.CounterReport;
import org.urdma.switchemu.sim.Flow;
import org.urdma.switchemu.sim.FlowStats;
import org.urdma.switchemu.sim.SimHost;
import org.urdma.switchemu.sim.SimSwitch;
import org.urdma.switchemu.sim.SimTopology;
import org.urdma.switchemu.sim.Simulator;
import org.urdma.transport.counters.CountersFile;
import org.urdma.switchemu.topo.Topology;

import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * A whole topology in this process, for users without root (no namespaces, veths or AF_PACKET) or who ask
 * for it: the same {@code SwitchCore}s under the simulated driver ({@link SimTopology}: links with their
 * rate and delay, the links' impairment, hosts that honour PFC), its virtual clock paced to the wall
 * clock, so a run of 10 s takes 10 s and its counters can be watched live with {@code urdma stat} (when
 * the simulation cannot keep up, virtual time falls behind and the report says so). Hosts send the
 * topology's {@code flows:}, or by default every host to the last one. Prints the per-port counters of
 * every switch (or one) and what each flow's sink saw.
 */
public final class InProcessRun {
    /** How long, how much traffic, what to record. */
    public record Options(long durationNs, long seed, double load, int frameBytes, Path pcapDir, Path countersFile) {
        public Options {
            if (durationNs <= 0) {
                throw new IllegalArgumentException("duration must be > 0 for an in-process run");
            }
            if (!(load > 0 && load <= 10)) {
                throw new IllegalArgumentException("load must be in (0, 10] (fraction of the sink's link rate per sender), was "
                    + load);
            }
            if (frameBytes < 64 || frameBytes > 9238) {
                throw new IllegalArgumentException("frame size must be 64..9238 bytes, was " + frameBytes);
            }
        }
    }

    /** A flow as run: its topology ends and the simulator's flow. */
    public record RunFlow(String from, String to, long rateBps, Flow flow) {
    }

    /** Frames a host adds to a frame on the wire (preamble, SFD, FCS, IFG): as {@link SimHost} counts. */
    private static final int WIRE_OVERHEAD = 24;
    private static final long STEP_NS = 5_000_000L;
    private static final long PUBLISH_NS = 100_000_000L;

    private final Topology topology;
    private final Options options;
    private final Simulator sim = new Simulator();
    private final SimTopology net;
    private final List<RunFlow> flows = new ArrayList<>();
    private final List<SwitchCapture> captures = new ArrayList<>();
    private volatile boolean stop;
    private long wallNs;

    public InProcessRun(Topology topology, Options options) {
        this.topology = topology;
        this.options = options;
        this.net = new SimTopology(topology, sim, options.seed());
        long epoch = System.currentTimeMillis() * 1_000_000L;
        if (options.pcapDir() != null) {
            for (SimSwitch s : net.switches.values()) {
                try {
                    SwitchCapture c = new SwitchCapture(options.pcapDir(), s.name(), s.core().portCount(), epoch);
                    captures.add(c);
                    s.capture(c);
                } catch (IOException e) {
                    captures.forEach(SwitchCapture::close);
                    throw new UncheckedIOException("cannot write pcap files in " + options.pcapDir(), e);
                }
            }
        }
        int id = 0;
        for (Topology.Flow f : flows(topology)) {
            long rate = f.rateBps() > 0 ? f.rateBps() : defaultRate(topology, f.to(), options.load());
            int priority = f.priority() >= 0 ? f.priority() : defaultPriority(topology);
            int size = f.frameBytes() > 0 ? f.frameBytes() : options.frameBytes();
            SimHost from = net.hosts.get(f.from());
            long gap = Math.max(1, (long) Math.ceil((size + WIRE_OVERHEAD) * 8e9 / rate));
            // IPv4/UDP, ECT(0), VLAN PCP and DSCP from the priority: classified and ECN-marked whatever the port's mode
            Flow flow = new Flow(id++, topology.hosts().get(f.to()).mac(), priority, true, size, Integer.MAX_VALUE)
                .ipv4(priority << 3, 2).gap(gap).start(0);
            from.send(flow);
            flows.add(new RunFlow(f.from(), f.to(), rate, flow));
        }
    }

    /** The file's flows, or every other host to the last host (the sink). */
    static List<Topology.Flow> flows(Topology topology) {
        if (!topology.flows().isEmpty()) {
            return topology.flows();
        }
        List<String> hosts = topology.hosts().keySet().stream()
            .filter(h -> topology.links().stream().anyMatch(l -> l.a().equals(h) || l.b().equals(h))).toList();
        List<Topology.Flow> out = new ArrayList<>();
        if (hosts.size() < 2) {
            return out;
        }
        String sink = hosts.get(hosts.size() - 1);
        for (String h : hosts.subList(0, hosts.size() - 1)) {
            out.add(new Topology.Flow(h, sink, 0, 0, -1, 0));
        }
        return out;
    }

    /**
     * {@code load} of the sink's link rate, counted at most as {@link #DEFAULT_RATE_CAP_BPS}: the simulator
     * runs a few hundred thousand frames a second, so faster default traffic would leave the wall clock
     * behind (flows given in the file run at their own rate).
     */
    static long defaultRate(Topology topology, String sink, double load) {
        return Math.max(1, (long) (Math.min(topology.hostLink(sink).rateBps(), DEFAULT_RATE_CAP_BPS) * load));
    }

    static final long DEFAULT_RATE_CAP_BPS = 1_000_000_000L;

    /** The lowest lossless (PFC) priority of any switch, else 0. */
    static int defaultPriority(Topology topology) {
        int mask = 0;
        for (Topology.Switch s : topology.switches().values()) {
            mask |= s.pfcMask();
        }
        return mask == 0 ? 0 : Integer.numberOfTrailingZeros(mask);
    }

    public List<RunFlow> flows() {
        return flows;
    }

    public SimTopology network() {
        return net;
    }

    /** Virtual time simulated so far, ns. */
    public long simulatedNs() {
        return sim.now();
    }

    /** Ends the run early (from another thread, e.g. on SIGINT). */
    public void stop() {
        stop = true;
    }

    /**
     * Runs for the duration, virtual time paced to the wall clock; publishes the counters in the counters
     * file (if any) every 100 ms of wall time.
     */
    public void run() {
        CountersFile file = null;
        List<SwitchCounters> published = new ArrayList<>();
        if (options.countersFile() != null) {
            int capacity = 0;
            StringBuilder d = new StringBuilder("in-process run of " + topology.source()
                + " (simulated driver, virtual time paced to the wall clock)");
            for (SimSwitch s : net.switches.values()) {
                capacity += ForegroundSwitch.counterCapacity(s.core().portCount());
                d.append('\n').append(org.urdma.switchemu.stat.StatReport.portsLine(s.name(), peers(s.name())));
            }
            file = CountersFile.create(options.countersFile(), capacity, d.toString());
            for (SimSwitch s : net.switches.values()) {
                published.add(new SwitchCounters(s.name(), s.core(), file.manager()));
            }
            file.running();
        }
        try {
            long start = System.nanoTime();
            long nextPublish = start;
            while (!stop && sim.now() < options.durationNs()) {
                long wall = System.nanoTime() - start;
                long target = Math.min(options.durationNs(), Math.min(wall, sim.now() + STEP_NS));
                if (target <= sim.now()) {
                    sleepNs(Math.min(STEP_NS, options.durationNs() - sim.now()));
                    continue;
                }
                sim.runUntil(target);
                if (file != null && System.nanoTime() >= nextPublish) {
                    published.forEach(SwitchCounters::publish);
                    file.heartbeat();
                    nextPublish = System.nanoTime() + PUBLISH_NS;
                }
            }
            wallNs = System.nanoTime() - start;
        } finally {
            published.forEach(SwitchCounters::publish);
            if (file != null) {
                file.close();
            }
            captures.forEach(SwitchCapture::close);
        }
    }

    private static void sleepNs(long ns) {
        try {
            TimeUnit.NANOSECONDS.sleep(Math.max(ns, 100_000));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private List<String> peers(String switchName) {
        return topology.ports(switchName).stream().map(Topology.Port::peer).toList();
    }

    /**
     * Runs {@code topology} in-process for the user: says why, runs (Ctrl-C ends it early), prints the
     * counters of {@code onlySwitch} (null: every switch) and the flows.
     */
    public static void runAndReport(Topology topology, String onlySwitch, String why, Options options, PrintStream out) {
        InProcessRun run = new InProcessRun(topology, options);
        out.println("in-process: " + why);
        out.println("  " + topology.source() + ": " + topology.hosts().size() + " hosts, " + topology.switches().size()
            + " switches, " + topology.links().size() + " links, under the simulated driver (the same SwitchCore; links "
            + "modelled with their rate and delay; virtual clock paced to the wall clock) for "
            + (options.durationNs() == Long.MAX_VALUE ? "until stopped (Ctrl-C)"
            : String.format(Locale.ROOT, "%.3f s (Ctrl-C ends it early)", options.durationNs() / 1e9)));
        out.println("  impairment: " + impairmentNote(topology));
        if (run.flows.isEmpty()) {
            out.println("  traffic: none (the topology has fewer than two linked hosts and no flows)");
        }
        if (topology.flows().isEmpty() && !run.flows.isEmpty()) {
            out.println(String.format(Locale.ROOT, "  traffic: no flows in the file, so every host sends to the last one at "
                + "%.0f %% of its link rate (at most of 1 Gbit/s; --load, --frame-size)", options.load() * 100));
        }
        for (RunFlow f : run.flows) {
            out.println(String.format(Locale.ROOT, "  flow %d: %s -> %s, %d B frames (IPv4/UDP, ECT(0)), priority %d, %s",
                f.flow().id(), f.from(), f.to(), f.flow().frameBytes(), f.flow().priority(),
                org.urdma.switchemu.stat.StatReport.bitRate(f.rateBps())));
        }
        if (options.countersFile() != null) {
            out.println("  live counters: " + options.countersFile() + " (urdma stat " + topology.source() + ")");
        }
        if (options.pcapDir() != null) {
            out.println("  pcap: " + options.pcapDir() + "/SW-pN.pcap (virtual time from the start of the run)");
        }
        out.flush();
        CountDownLatch done = new CountDownLatch(1);
        Thread hook = new Thread(() -> {
            run.stop();
            try {
                done.await(10, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }, "in-process-stop");
        Runtime.getRuntime().addShutdownHook(hook);
        try {
            run.run();
            out.print(run.report(onlySwitch));
            out.flush();
        } finally {
            done.countDown();
            try {
                Runtime.getRuntime().removeShutdownHook(hook);
            } catch (IllegalStateException shuttingDown) {
                // the hook runs: it waited for the report above
            }
        }
    }

    /** Who impairs, in-process: always the switch stage (kernel tc netem needs namespaces and root). */
    static String impairmentNote(Topology topology) {
        List<String> kernel = topology.links().stream()
            .filter(l -> l.impaired() && l.mode() == Topology.ImpairmentMode.KERNEL)
            .map(l -> Integer.toString(l.line())).toList();
        if (topology.links().stream().noneMatch(Topology.Link::impaired)) {
            return "none configured";
        }
        return "switch stage (netem semantics, seeded)" + (kernel.isEmpty() ? ""
            : "; the links of lines " + String.join(",", kernel) + " ask for kernel tc netem, which needs namespaces: "
            + "in-process the switch stage applies them");
    }

    /** Per-port counters of the switches and what each flow's sink saw. */
    public String report(String onlySwitch) {
        StringBuilder sb = new StringBuilder();
        sb.append(String.format(Locale.ROOT, "in-process run: simulated %.3f s in %.3f s wall%s%n", sim.now() / 1e9,
            wallNs / 1e9, sim.now() + 50_000_000L < wallNs ? " (the simulation fell behind the wall clock)" : ""));
        for (SimSwitch s : net.switches.values()) {
            if (onlySwitch != null && !onlySwitch.equals(s.name())) {
                continue;
            }
            List<String> peers = peers(s.name());
            sb.append(String.format(Locale.ROOT, "switch %s: %d ports, ran %.3f s (simulated, in-process), impairment: %s%n",
                s.name(), s.core().portCount(), sim.now() / 1e9, impairmentNote(topology)));
            for (int i = 0; i < s.core().portCount(); i++) {
                CounterReport.appendPort(sb, i, "p" + i, peers.get(i), s.core().counters(i), sim.now());
                if (s.ingressImpairment(i) != null || s.egressImpairment(i) != null) {
                    CounterReport.appendImpairment(sb, s.ingressImpairment(i), s.egressImpairment(i));
                }
            }
        }
        for (RunFlow f : flows) {
            FlowStats st = net.hosts.get(f.to()).stats(f.flow().id());
            long sent = f.flow().sent();
            double loss = sent == 0 ? 0 : 100.0 * Math.max(0, sent - st.unique) / sent;
            sb.append(String.format(Locale.ROOT,
                "flow %d %s -> %s prio %d: sent %d, received %d (unique %d, %.2f %% not arrived incl. in flight), duplicates %d, "
                    + "reordered %d, CE %d, one-way delay %s%n", f.flow().id(), f.from(), f.to(), f.flow().priority(), sent,
                st.frames, st.unique, loss, st.duplicates, st.reordered, st.ceMarked,
                st.frames == 0 ? "-" : String.format(Locale.ROOT, "mean %.1f us, max %.1f us", st.meanDelayNs() / 1e3,
                    st.maxDelayNs / 1e3)));
        }
        return sb.toString();
    }
}
