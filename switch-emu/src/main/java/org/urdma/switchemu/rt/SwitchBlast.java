package org.urdma.switchemu.rt;

import org.urdma.nativeio.AfPacketOptions;
import org.urdma.nativeio.AfPacketSocket;
import org.urdma.nativeio.RawBlast;
import org.urdma.nativeio.netns.Netns;
import org.urdma.switchemu.deploy.NetworkBuilder;
import org.urdma.switchemu.topo.Topology;
import org.urdma.switchemu.topo.TopologyParser;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.Locale;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Forwarding rate of the real-time switch between two hosts in namespaces, beside a raw AF_PACKET blast
 * on a plain veth pair measured in the same run (a benchmark, needs root):
 * <pre>
 * java --enable-native-access=ALL-UNNAMED -cp dist/target/urdma.jar org.urdma.switchemu.rt.SwitchBlast \
 *     [FRAMES [SIZE [MTU [ROUNDS [SPIN|BACKOFF|WAIT [RX_RING_MB [NICE [V2|V3]]]]]]]]
 * </pre>
 * One warm-up pair (not counted, so the JIT compiles both paths first), then ROUNDS pairs interleaved
 * (raw, switch, raw, switch ...) so that other load on the machine hits both alike; prints every pair's
 * ratio and the ratio of the medians, with the load average. Same sender ({@link RawBlast#blast}) and
 * receiver ({@link RawBlast#count}) code in both. The switch has PFC (priority 3, every port's default
 * priority), ECN and the Dynamic Threshold MMU on; links are 100 Gbit/s so that the switch's
 * serialization model does not cap the rate.
 */
public final class SwitchBlast {
    private SwitchBlast() {
    }

    public static void main(String[] args) throws Exception {
        long frames = args.length > 0 ? Long.parseLong(args[0]) : 300_000;
        int size = args.length > 1 ? Integer.parseInt(args[1]) : 4096;
        int mtu = args.length > 2 ? Integer.parseInt(args[2]) : 9000;
        int rounds = args.length > 3 ? Integer.parseInt(args[3]) : 3;
        RtOptions.Idle idle = args.length > 4 ? RtOptions.Idle.valueOf(args[4].toUpperCase(Locale.ROOT)) : RtOptions.Idle.WAIT;
        int ringMb = args.length > 5 ? Integer.parseInt(args[5]) : 64;
        int nice = args.length > 6 ? Integer.parseInt(args[6]) : 0;
        AfPacketOptions.Version ring = args.length > 7 ? AfPacketOptions.Version.valueOf(args[7].toUpperCase(Locale.ROOT))
            : AfPacketOptions.Version.V2;
        RtOptions options = RtOptions.defaults().idle(idle).rxRingBytes(ringMb << 20).txBatch(64).nice(nice).rxVersion(ring);
        System.out.printf(Locale.ROOT, "SwitchBlast: %d frames of %d B, MTU %d, %d rounds, switch idle %s, RX ring %s %d MB per port, nice %d%n",
            frames, size, mtu, rounds, idle, ring, ringMb, nice);
        System.out.println("load before: " + Load.average());
        rawRun(Math.max(1000, frames / 5), size, mtu);
        switchRun(Math.max(1000, frames / 5), size, mtu, options, false);
        double[] raw = new double[rounds];
        double[] ours = new double[rounds];
        for (int r = 0; r < rounds; r++) {
            RawBlast.RxResult b = rawRun(frames, size, mtu);
            raw[r] = b.framesPerSecond();
            long rawSenderCpu = senderCpuNs;
            RawBlast.RxResult o = switchRun(frames, size, mtu, options, r == rounds - 1);
            ours[r] = o.framesPerSecond();
            System.out.printf(Locale.ROOT, "round %d CPU per frame: raw sender %.2f us; switch run: sender %.2f us, switch thread %.2f us (user %.2f us)%n",
                r + 1, rawSenderCpu / 1e3 / frames, senderCpuNs / 1e3 / frames, switchCpuNs / 1e3 / Math.max(1, o.frames()),
                switchUserNs / 1e3 / Math.max(1, o.frames()));
            System.out.printf(Locale.ROOT, "round %d: raw %.0f frames/s (%.2f Gbit/s, %d of %d), switch %.0f frames/s (%.2f Gbit/s, %d of %d), ratio %.2f; load %s%n",
                r + 1, raw[r], b.gbitPerSecond(), b.frames(), frames, ours[r], o.gbitPerSecond(), o.frames(), frames,
                ours[r] / raw[r], Load.average());
        }
        double mr = median(raw);
        double mo = median(ours);
        System.out.printf(Locale.ROOT, "RESULT %d B: switch %.0f frames/s, raw %.0f frames/s (medians of %d), ratio %.2f; load %s%n",
            size, mo, mr, rounds, mo / mr, Load.average());
    }

    private static double median(double[] v) {
        double[] s = v.clone();
        java.util.Arrays.sort(s);
        return s.length % 2 == 1 ? s[s.length / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
    }

    /** The baseline: sender and receiver on a plain veth pair between two fresh namespaces. */
    static RawBlast.RxResult rawRun(long frames, int size, int mtu) throws Exception {
        try (org.urdma.nativeio.netns.Topology t = org.urdma.nativeio.netns.Topology.create()) {
            String a = t.namespace("blasta");
            String b = t.namespace("blastb");
            t.veth(a, "bl0", b, "bl1", org.urdma.nativeio.netns.Topology.LinkOptions.mtu(mtu));
            t.disableIpv6(a);
            t.disableIpv6(b);
            AfPacketSocket rxs = Netns.call(b, () -> AfPacketSocket.open("bl1", receiverOptions(mtu)));
            AfPacketSocket txs = Netns.call(a, () -> AfPacketSocket.open("bl0", senderOptions(mtu)));
            byte[] dst = Netns.call(b, () -> org.urdma.nativeio.NetInterface.lookup("bl1").mac());
            byte[] src = Netns.call(a, () -> org.urdma.nativeio.NetInterface.lookup("bl0").mac());
            try (rxs; txs) {
                return blastAndCount(rxs, txs, dst, src, frames, size);
            }
        }
    }

    private static AfPacketOptions receiverOptions(int mtu) {
        return AfPacketOptions.forMtu(mtu).protocol(RawBlast.ETHERTYPE).noTxRing().rxRing(1 << 20, 64, 2048, 1);
    }

    private static AfPacketOptions senderOptions(int mtu) {
        AfPacketOptions txOpts = AfPacketOptions.forMtu(mtu).protocol(0).noRxRing().sendBuffer(16 << 20);
        return txOpts.txRing(align16(mtu + 18 + 64), Math.max(512, (32 << 20) / (mtu + 82)));
    }

    private static RawBlast.RxResult blastAndCount(AfPacketSocket rxs, AfPacketSocket txs, byte[] dst, byte[] src,
                                                   long frames, int size) throws InterruptedException {
        AtomicBoolean stop = new AtomicBoolean();
        CountDownLatch ready = new CountDownLatch(1);
        RawBlast.RxResult[] rr = new RawBlast.RxResult[1];
        Thread receiver = Thread.ofPlatform().name("blast-rx").start(() -> {
            ready.countDown();
            rr[0] = RawBlast.count(rxs, frames, stop, 500);
        });
        ready.await();
        long cpu0 = THREADS.getCurrentThreadCpuTime();
        RawBlast.blast(txs, dst, src, frames, size);
        senderCpuNs = THREADS.getCurrentThreadCpuTime() - cpu0;
        stop.set(true);
        receiver.join();
        return rr[0];
    }

    private static final java.lang.management.ThreadMXBean THREADS = java.lang.management.ManagementFactory.getThreadMXBean();
    /** CPU time of the last run's sender thread, and of the last switch run's driver thread. */
    static long senderCpuNs;
    static long switchCpuNs;
    static long switchUserNs;

    /** Load average of the machine (1, 5, 15 min), from /proc/loadavg. */
    static final class Load {
        static String average() {
            try {
                String[] f = java.nio.file.Files.readString(java.nio.file.Path.of("/proc/loadavg")).split(" ");
                return f[0] + " " + f[1] + " " + f[2];
            } catch (java.io.IOException e) {
                return "?";
            }
        }
    }

    /**
     * The topology of the switch benchmarks: h1 - s1 - h2 at {@code rate}, PFC and ECN on priority 3. {@code firstLink}
     * and {@code secondLink} go inside each link's braces (e.g. {@code ", impairAtoB: {delay: 1ms}"}).
     */
    static String lineTopology(String rate, int mtu, String firstLink, String secondLink) {
        return """
            hosts:
              - {name: h1, mac: "02:00:00:00:00:01", ip: 10.9.0.1/24}
              - {name: h2, mac: "02:00:00:00:00:02", ip: 10.9.0.2/24}
            switches:
              - name: s1
                buffer: 4MB
                pfc: [3]
                defaultPriority: 3
                classify: default
                ecn: {priorities: [3], kmin: 100KB, kmax: 1MB, pmax: 1%%}
            links:
              - {endpoints: [h1, s1], rate: %s, mtu: %d%s}
              - {endpoints: [s1, h2], rate: %s, mtu: %d%s}
            """.formatted(rate, mtu, firstLink, rate, mtu, secondLink);
    }

    static RawBlast.RxResult switchRun(long frames, int size, int mtu, RtOptions options, boolean report) throws Exception {
        Topology topology = TopologyParser.parse(lineTopology("100G", mtu, "", ""), "SwitchBlast");
        try (org.urdma.nativeio.netns.Topology net = org.urdma.nativeio.netns.Topology.create()) {
            NetworkBuilder.Network n = NetworkBuilder.build(topology, net, ns -> { });
            AfPacketSocket rxs = Netns.call(n.namespace("h2"), () -> AfPacketSocket.open(NetworkBuilder.HOST_INTERFACE, receiverOptions(mtu)));
            AfPacketSocket txs = Netns.call(n.namespace("h1"), () -> AfPacketSocket.open(NetworkBuilder.HOST_INTERFACE, senderOptions(mtu)));
            RtSwitch sw = Netns.call(n.namespace("s1"), () -> RtSwitch.fromTopology(topology, "s1", options));
            byte[] h1 = {2, 0, 0, 0, 0, 1};
            byte[] h2 = {2, 0, 0, 0, 0, 2};
            try (rxs; txs; RtSwitchRunner runner = RtSwitchRunner.start(sw)) {
                // h2 speaks once so the switch forwards to its port instead of flooding
                try (Arena a = Arena.ofConfined()) {
                    MemorySegment hello = a.allocate(60);
                    MemorySegment.copy(new byte[]{-1, -1, -1, -1, -1, -1, 2, 0, 0, 0, 0, 2, (byte) 0x88, (byte) 0xB6}, 0,
                        hello, java.lang.foreign.ValueLayout.JAVA_BYTE, 0, 14);
                    rxs.send(hello, 60);
                }
                Thread.sleep(100);
                RawBlast.RxResult r = blastAndCount(rxs, txs, h2, h1, frames, size);
                switchCpuNs = runner.cpuNanos();
                switchUserNs = runner.userNanos();
                runner.close();
                if (report) {
                    System.out.println("last switch run, receiver socket: " + r.stats());
                    System.out.print(CounterReport.format(sw, "none"));
                }
                return r;
            }
        }
    }

    private static int align16(int x) {
        return (x + 15) & ~15;
    }
}
