package org.urdma.scenario.world;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.Locale;
import org.urdma.switchemu.core.PortConfig;
import org.urdma.switchemu.core.SwitchConfig;
import org.urdma.switchemu.world.DeviceHost;
import org.urdma.switchemu.world.MessageWorkload;
import org.urdma.switchemu.world.SwitchNode;
import org.urdma.switchemu.world.World;
import org.urdma.transport.driver.MemoryFabric;
import org.urdma.transport.engine.DeviceConfig;
import org.urdma.transport.rate.RateControl;
import org.urdma.transport.recovery.LossRecovery;
import org.urdma.verbs.PathMtu;
import org.urdma.verbs.QpType;

/**
 * How fast the simulator runs: simulated seconds per wall second and events per second for a two-host path and an
 * N:1 incast of RC WRITE streams through one switch (4 KiB MTU, 1 MiB messages). The first {@code warmupNs} of
 * simulated time warm the JIT and are not measured. Beside wall time it reports the simulating thread's CPU time: on a
 * shared machine wall time measures the neighbours, CPU time the simulator.
 */
public final class Speed {
    public record Options(long pathRateBps, long incastRateBps, int incastSenders, long durationNs, long warmupNs,
                          boolean described, long seed) {
        public Options {
            if (pathRateBps <= 0 || incastRateBps <= 0) throw new IllegalArgumentException("rate: must be > 0");
            if (incastSenders < 1 || incastSenders > 62) throw new IllegalArgumentException("senders: must be 1..62");
            if (durationNs <= 0 || warmupNs < 0) throw new IllegalArgumentException("duration: must be > 0");
        }

        public static Options defaults() {
            return new Options(100_000_000_000L, 25_000_000_000L, 8, 100_000_000L, 20_000_000L, false, 1);
        }
    }

    private static final long START = 1_000_000;

    private Speed() {
    }

    public static ResultTable run(Options o) {
        ResultTable t = new ResultTable("speed: simulated time per wall time, RC WRITE 1 MiB messages, 4 KiB MTU, "
                + (o.described ? "described payloads" : "payload bytes"), "world", "sim_ms", "wall_ms", "cpu_ms",
                "sim_s_per_wall_s", "sim_s_per_cpu_s", "events_per_s", "goodput_gbps", "frames_high_water");
        measure(t, "2 hosts @ " + gbps(o.pathRateBps), o, 1, o.pathRateBps);
        measure(t, o.incastSenders + ":1 incast @ " + gbps(o.incastRateBps), o, o.incastSenders, o.incastRateBps);
        return t;
    }

    private static String gbps(long bps) {
        return String.format(Locale.ROOT, "%.0fG", bps / 1e9);
    }

    private static void measure(ResultTable t, String name, Options o, int senders, long rate) {
        try (World w = new World(o.seed, START)) {
            if (o.described) w.describePayloads();
            SwitchConfig sc = new SwitchConfig().bufferBytes(16_000_000);
            for (int i = 0; i <= senders; i++) sc.port(new PortConfig().rateBps(rate));
            SwitchNode s = w.addSwitch("s1", sc);
            DeviceHost sink = w.addDevice(DeviceConfig.named("sink", 1), 4096, 0);
            w.connect(sink, s, senders, rate, 1_000, null, null);
            MessageWorkload[] m = new MessageWorkload[senders];
            for (int i = 0; i < senders; i++) {
                DeviceHost h = w.addDevice(DeviceConfig.named("h" + i, 0x10 + i), 4096, 0);
                w.connect(h, s, i, rate, 1_000, null, null);
                m[i] = new MessageWorkload(w, "h" + i, h, sink, MessageWorkload.Op.WRITE, QpType.RC, 1 << 20, 4, 0,
                        START + o.warmupNs + o.durationNs, LossRecovery.goBackN(), RateControl.none(),
                        MemoryFabric.Connection.defaults().withMtu(PathMtu.MTU_4096), o.seed + i);
                w.add(h, m[i], START);
            }
            w.runUntil(START + o.warmupNs);
            long bytes0 = bytes(m);
            long events0 = w.events();
            ThreadMXBean cpu = ManagementFactory.getThreadMXBean();
            long cpu0 = cpu.getCurrentThreadCpuTime();
            long wall0 = System.nanoTime();
            w.runUntil(START + o.warmupNs + o.durationNs);
            long wall = System.nanoTime() - wall0;
            long cpuNs = Math.max(1, cpu.getCurrentThreadCpuTime() - cpu0);
            long events = w.events() - events0;
            double goodput = (bytes(m) - bytes0) * 8.0 / o.durationNs;
            t.row(name, String.format(Locale.ROOT, "%.1f", o.durationNs / 1e6), String.format(Locale.ROOT, "%.0f", wall / 1e6),
                    String.format(Locale.ROOT, "%.0f", cpuNs / 1e6), String.format(Locale.ROOT, "%.3f", (double) o.durationNs / wall),
                    String.format(Locale.ROOT, "%.3f", (double) o.durationNs / cpuNs),
                    String.format(Locale.ROOT, "%.0f", events * 1e9 / wall), String.format(Locale.ROOT, "%.2f", goodput),
                    w.framesInFlightHighWater());
        }
    }

    private static long bytes(MessageWorkload[] m) {
        long n = 0;
        for (MessageWorkload x : m) n += x.result().bytes();
        return n;
    }
}
