package org.urdma.switchemu.rt;

import org.urdma.nativeio.AfPacketOptions;
import org.urdma.nativeio.AfPacketSocket;
import org.urdma.nativeio.FrameHandler;
import org.urdma.nativeio.RawBlast;
import org.urdma.nativeio.netns.Netns;
import org.urdma.switchemu.deploy.NetworkBuilder;
import org.urdma.switchemu.topo.Topology;
import org.urdma.switchemu.topo.TopologyParser;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.util.Arrays;
import java.util.Locale;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.LockSupport;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;

/**
 * One-way delay through the real-time switch with a configured impairment delay, beside the same path
 * without impairment measured in the same run (a benchmark, needs root):
 * <pre>
 * java --enable-native-access=ALL-UNNAMED -cp dist/target/urdma.jar org.urdma.switchemu.rt.SwitchDelay \
 *     [SECONDS [SIZE [RATES [DELAYS [egress|ingress [NICE]]]]]]      e.g. 2 1500 100M,1G 1ms,10ms egress 0
 * </pre>
 * h1 → s1 → h2 in namespaces, 10 Gbit/s links; h1 sends SIZE-byte frames paced to each offered RATE
 * (a sender that falls more than 200 us behind resumes at the rate rather than bursting to catch up),
 * each with a sequence number; a tap socket on the switch's port p0 (in s1's namespace) and h2's socket
 * record the kernel's receive timestamp of every frame, so a frame's delay is h2's timestamp minus the
 * switch port's: the time through the switch alone, with neither host's scheduling in the number. For every rate: the
 * path without impairment (baseline), then with each DELAY on the s1→h2 direction (applied at s1's
 * egress, or with {@code ingress} on h1→s1 at s1's ingress); p50 / p99 / max of each, and what the
 * impairment added beyond the configured delay (impaired − configured − baseline, per percentile).
 * {@code -Dverbose=true} adds each run's counters (early frames, driver CPU, wake-ups); {@code
 * -DspinWindowNs=N} overrides the driver's spin window ({@link RtOptions#spinWindowNs}).
 */
public final class SwitchDelay {
    private static final ValueLayout.OfLong BE_LONG = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    private static final ValueLayout.OfShort BE_SHORT = ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    private static final byte[] H1 = {2, 0, 0, 0, 0, 1};
    private static final byte[] H2 = {2, 0, 0, 0, 0, 2};
    private static final long MAGIC = 0x5357444c4159L;
    private static final long MAX_BEHIND_NS = 200_000;

    private static final boolean VERBOSE = Boolean.getBoolean("verbose");

    private SwitchDelay() {
    }

    /** Delay percentiles of one run, ns. */
    record Run(long sent, long received, long p50, long p99, long max, long min, double meanLatenessNs, long maxLatenessNs,
               String counters) {
    }

    public static void main(String[] args) throws Exception {
        double seconds = args.length > 0 ? Double.parseDouble(args[0]) : 2;
        int size = args.length > 1 ? Integer.parseInt(args[1]) : 1500;
        String[] rates = (args.length > 2 ? args[2] : "100M,1G").split(",");
        String[] delays = (args.length > 3 ? args[3] : "1ms,10ms").split(",");
        boolean ingress = args.length > 4 && args[4].equalsIgnoreCase("ingress");
        int nice = args.length > 5 ? Integer.parseInt(args[5]) : 0;
        RtOptions options = RtOptions.defaults().nice(nice);
        if (Long.getLong("spinWindowNs") != null) {
            options.spinWindowNs(Long.getLong("spinWindowNs")); // the driver's wake-up allowance, to compare
        }
        System.out.printf(Locale.ROOT, "SwitchDelay: %s s per run, %d B frames, rates %s, delays %s at s1's %s, switch idle %s, nice %d%n",
            seconds, size, String.join(",", rates), String.join(",", delays), ingress ? "ingress" : "egress", options.idle(), nice);
        System.out.println("load before: " + SwitchBlast.Load.average());
        run(0.5, size, 1_000_000_000L, null, ingress, options); // warm-up: the JIT compiles the paths
        for (String rateText : rates) {
            long rate = rate(rateText.trim());
            Run base = run(seconds, size, rate, null, ingress, options);
            print(rateText, "none (baseline)", 0, base, null);
            for (String d : delays) {
                long delayNs = nanos(d.trim());
                Run r = run(seconds, size, rate, d.trim(), ingress, options);
                print(rateText, d.trim(), delayNs, r, base);
            }
        }
        System.out.println("load after: " + SwitchBlast.Load.average());
    }

    private static void print(String rate, String delay, long delayNs, Run r, Run base) {
        System.out.printf(Locale.ROOT, "rate %s, delay %s: %d of %d frames; one-way p50 %s, p99 %s, max %s (min %s)",
            rate, delay, r.received(), r.sent(), us(r.p50()), us(r.p99()), us(r.max()), us(r.min()));
        if (base != null) {
            System.out.printf(Locale.ROOT, "; beyond configured + baseline: p50 %s, p99 %s, max %s; switch release lateness mean %s, max %s",
                us(r.p50() - delayNs - base.p50()), us(r.p99() - delayNs - base.p99()), us(r.max() - delayNs - base.max()),
                us((long) r.meanLatenessNs()), us(r.maxLatenessNs()));
        }
        System.out.printf(Locale.ROOT, "; load %s%n", SwitchBlast.Load.average());
        if (VERBOSE) {
            System.out.println("  " + r.counters());
        }
    }

    private static String us(long ns) {
        return String.format(Locale.ROOT, "%.1f us", ns / 1e3);
    }

    static Run run(double seconds, int size, long rateBps, String delay, boolean ingress, RtOptions options) throws Exception {
        String impairEgress = delay != null && !ingress ? ", impairAtoB: {delay: " + delay + "}" : "";
        String impairIngress = delay != null && ingress ? ", impairAtoB: {delay: " + delay + "}" : "";
        Topology topology = TopologyParser.parse(SwitchBlast.lineTopology("10G", 1500, impairIngress, impairEgress), "SwitchDelay");
        long interval = Math.max(1, size * 8L * 1_000_000_000L / rateBps);
        int frames = (int) Math.min(Integer.MAX_VALUE - 8, (long) (seconds * 1e9 / interval));
        try (org.urdma.nativeio.netns.Topology net = org.urdma.nativeio.netns.Topology.create()) {
            NetworkBuilder.Network n = NetworkBuilder.build(topology, net, ns -> { });
            AfPacketOptions rxOpts = AfPacketOptions.forMtu(1500).protocol(RawBlast.ETHERTYPE).noTxRing()
                .rxRing(1 << 20, 64, 2048, 1);
            AfPacketOptions txOpts = AfPacketOptions.forMtu(1500).protocol(0).noRxRing().txRing(2048, 1024);
            AfPacketSocket rxs = Netns.call(n.namespace("h2"), () -> AfPacketSocket.open(NetworkBuilder.HOST_INTERFACE, rxOpts));
            AfPacketSocket txs = Netns.call(n.namespace("h1"), () -> AfPacketSocket.open(NetworkBuilder.HOST_INTERFACE, txOpts));
            RtSwitch sw = Netns.call(n.namespace("s1"), () -> RtSwitch.fromTopology(topology, "s1", options));
            // ETH_P_ALL and opened after the switch's own socket: the kernel hands it each frame first, so its
            // timestamp is never later than the one the switch dates the frame by (the delay is not understated)
            AfPacketOptions tapOpts = AfPacketOptions.forMtu(1500).noTxRing().rxRing(1 << 20, 64, 2048, 1);
            AfPacketSocket tap = Netns.call(n.namespace("s1"), () -> AfPacketSocket.open(RtSwitch.portInterface(0), tapOpts));
            try (rxs; txs; tap; RtSwitchRunner runner = RtSwitchRunner.start(sw)) {
                try (Arena a = Arena.ofConfined()) {
                    // h2 speaks once so the switch forwards to its port instead of flooding
                    MemorySegment hello = a.allocate(60);
                    MemorySegment.copy(new byte[]{-1, -1, -1, -1, -1, -1, 2, 0, 0, 0, 0, 2, (byte) 0x88, (byte) 0xB6}, 0,
                        hello, JAVA_BYTE, 0, 14);
                    rxs.send(hello, 60);
                }
                Thread.sleep(100);
                // kernel receive timestamps of every frame where it enters the switch (a tap on s1's port p0)
                // and where it leaves the link to h2: their difference is the delay through the switch alone
                long[] inTs = new long[frames];
                long[] outTs = new long[frames];
                long[] hostDelay = new long[frames];
                int[] got = new int[2];
                AtomicBoolean stop = new AtomicBoolean();
                CountDownLatch ready = new CountDownLatch(1);
                Thread receiver = Thread.ofPlatform().name("delay-rx").start(() -> {
                    FrameHandler atSwitch = f -> {
                        int seq = seq(f, frames);
                        if (seq >= 0) {
                            inTs[seq] = f.timestampNanos();
                        }
                    };
                    FrameHandler atHost = f -> {
                        int seq = seq(f, frames);
                        if (seq >= 0) {
                            outTs[seq] = f.timestampNanos();
                            hostDelay[got[0]++] = f.timestampNanos() - f.buffer().get(BE_LONG, f.offset() + 30);
                        }
                    };
                    ready.countDown();
                    while (!stop.get()) {
                        if (tap.receive(atSwitch) + rxs.receive(atHost) == 0) {
                            rxs.pollIn(1);
                        }
                    }
                    tap.receive(atSwitch);
                    rxs.receive(atHost);
                });
                ready.await();
                send(txs, frames, size, interval);
                // the longest delay plus slack for the last frames to come out
                long settle = (delay == null ? 0 : nanos(delay)) / 1_000_000 + 200;
                Thread.sleep(settle);
                stop.set(true);
                receiver.join();
                long cpu = runner.cpuNanos();
                long user = runner.userNanos();
                runner.close();
                long[] d = new long[frames];
                int m = 0;
                for (int i = 0; i < frames; i++) {
                    if (inTs[i] != 0 && outTs[i] != 0) {
                        d[m++] = outTs[i] - inTs[i];
                    }
                }
                d = Arrays.copyOf(d, m);
                Arrays.sort(d);
                long[] h = Arrays.copyOf(hostDelay, got[0]);
                Arrays.sort(h);
                long hostP50 = h.length == 0 ? 0 : h[h.length / 2];
                RtPort egress = sw.port(1);
                RtPort in = sw.port(0);
                RtPort impaired = ingress ? in : egress;
                if (d.length == 0) {
                    return new Run(frames, 0, 0, 0, 0, 0, 0, 0, "");
                }
                String counters = String.format(Locale.ROOT, "h1 -> h2 (sender's clock to h2's kernel) p50 %.1f us; ", hostP50 / 1e3) + "s1 in: " + in.io().describeCounters() + "; s1 out: " + egress.io().describeCounters()
                    + ", refused " + egress.txRefused() + ", delay-full " + impaired.delayFull() + ", switch drops "
                    + sw.core().counters(0).totalDrops() + "/" + sw.core().counters(1).totalDrops()
                    + String.format(Locale.ROOT, "; switch thread CPU %.0f ms (user %.0f) in %.0f ms; clock offset uncertainty %d ns; early frames %d; sleeps: %s",
                    cpu / 1e6, user / 1e6, sw.runNanos() / 1e6, sw.epochOffsetUncertaintyNs(), early(d, delay == null ? 0 : nanos(delay)), sw.sleepCounts());
                return new Run(frames, d.length, d[d.length / 2], d[(int) Math.min(d.length - 1, d.length * 99L / 100)],
                    d[d.length - 1], d[0], impaired.meanReleaseLatenessNs(), impaired.maxReleaseLatenessNs(), counters);
            }
        }
    }

    private static int early(long[] sorted, long delayNs) {
        int n = 0;
        while (n < sorted.length && sorted[n] < delayNs) {
            n++;
        }
        return n;
    }

    /** The frame's sequence number if it is one of this run's test frames, else -1. */
    private static int seq(org.urdma.nativeio.RxFrame f, int frames) {
        if (f.length() < 38 || f.buffer().get(BE_LONG, f.offset() + 14) != MAGIC) {
            return -1;
        }
        long seq = f.buffer().get(BE_LONG, f.offset() + 22);
        return seq >= 0 && seq < frames ? (int) seq : -1;
    }

    /** Paced sender: frames due by now go out together (one kick), the thread sleeps until the next is due. */
    private static void send(AfPacketSocket tx, int frames, int size, long interval) {
        PortWaiter.timerSlack(1_000);
        PortWaiter clock = new PortWaiter(new int[0]);
        MemorySegment ring = tx.txBuffer();
        long start = System.nanoTime() + 1_000_000;
        int i = 0;
        while (i < frames) {
            long now = System.nanoTime();
            long due = start + i * interval;
            if (now - due > MAX_BEHIND_NS) {
                // the sender was descheduled: carry on at the offered rate from now instead of sending the
                // missed frames in one burst above it (a burst would measure the switch's backlog, not its delay)
                start += now - due;
                due = now;
            }
            if (due > now) {
                if (due - now > 30_000) {
                    LockSupport.parkNanos(due - now - 20_000);
                }
                continue;
            }
            while (i < frames && start + i * interval <= now) {
                int slot = tx.txAcquire();
                if (slot < 0) {
                    tx.flush();
                    continue;
                }
                long off = tx.txDataOffset(slot);
                MemorySegment.copy(H2, 0, ring, JAVA_BYTE, off, 6);
                MemorySegment.copy(H1, 0, ring, JAVA_BYTE, off + 6, 6);
                ring.set(BE_SHORT, off + 12, (short) RawBlast.ETHERTYPE);
                ring.set(BE_LONG, off + 14, MAGIC);
                ring.set(BE_LONG, off + 22, i);
                ring.set(BE_LONG, off + 30, clock.realtimeNanos());
                tx.txCommit(slot, size);
                i++;
            }
            tx.flush();
        }
        tx.flush(true);
    }

    /** "100M", "1G", "2.5G" (bit/s). */
    static long rate(String text) {
        return (long) scaled(text, "rate", new String[]{"K", "M", "G"}, new double[]{1e3, 1e6, 1e9});
    }

    /** "500us", "1ms", "10ms", "1s" (ns). */
    static long nanos(String text) {
        return (long) scaled(text, "delay", new String[]{"ns", "us", "ms", "s"}, new double[]{1, 1e3, 1e6, 1e9});
    }

    private static double scaled(String text, String what, String[] units, double[] factors) {
        for (int i = units.length - 1; i >= 0; i--) {
            if (text.endsWith(units[i]) && !(units[i].equals("s") && (text.endsWith("ms") || text.endsWith("us") || text.endsWith("ns")))) {
                return Double.parseDouble(text.substring(0, text.length() - units[i].length())) * factors[i];
            }
        }
        try {
            return Double.parseDouble(text);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(what + " '" + text + "': expected a number with one of " + String.join(", ", units));
        }
    }
}
