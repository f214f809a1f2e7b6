package org.urdma.switchemu.deploy;

import org.urdma.nativeio.netns.Netns;
import org.urdma.switchemu.rt.CounterReport;
import org.urdma.switchemu.rt.RtOptions;
import org.urdma.switchemu.rt.RtSwitch;
import org.urdma.switchemu.rt.RtSwitchRunner;
import org.urdma.switchemu.topo.NetemProbe;
import org.urdma.switchemu.topo.Topology;

import java.io.PrintStream;
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

    /** What provides impairment, as printed: the switch stage (and why), or nothing. */
    public static String impairmentNote(Topology topology, RtOptions options) {
        boolean any = topology.links().stream().anyMatch(l -> !none(l.aToB()) || !none(l.bToA()));
        if (!any) {
            return "none configured";
        }
        NetemProbe.Result netem = NetemProbe.probe();
        if (!options.impair()) {
            return "off in this switch (--no-impair; kernel sch_netem: " + netem + ")";
        }
        return "switch stage (netem semantics, seeded; kernel sch_netem: " + netem
            + (netem == NetemProbe.Result.ABSENT ? ", so tc netem cannot be used)" : ")");
    }

    private static boolean none(org.urdma.switchemu.impair.ImpairmentConfig c) {
        return c == null || c.isNone();
    }

    /**
     * Runs the switch; returns when {@code durationNs} (0 = until stopped) has passed. {@code netns} null
     * opens the ports in this process's namespace.
     */
    public static void run(Topology topology, String name, RtOptions options, String netns, long durationNs,
                           PrintStream out) throws Exception {
        String note = impairmentNote(topology, options);
        RtSwitch sw = netns == null
            ? RtSwitch.fromTopology(topology, name, options)
            : Netns.call(netns, () -> RtSwitch.fromTopology(topology, name, options));
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
        out.flush();
        if (durationNs > 0) {
            stopped.await(durationNs, TimeUnit.NANOSECONDS);
        } else {
            stopped.await();
        }
        finish.run();
        try {
            Runtime.getRuntime().removeShutdownHook(hook);
        } catch (IllegalStateException shuttingDown) {
            // the hook is running or ran: it reported
        }
    }
}
