package org.urdma.bench.perf;

import org.urdma.tools.perf.PerfRunner;
import org.urdma.tools.perf.PerfTest;
import org.urdma.tools.perf.WriteBwCommand;
import java.io.ByteArrayOutputStream;
import org.urdma.cli.Range;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.urdma.nativeio.RawBlast;
import org.urdma.nativeio.netns.Netns;
import org.urdma.nativeio.netns.Topology;
import org.urdma.transport.link.LinkFraming;
import org.urdma.transport.port.PortIdentity;
import org.urdma.transport.wire.FramingKind;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code urdma perf veth-bw} (root): the write bandwidth beside the kernel's per-frame floor, in one command. It makes two namespaces joined by a
 * veth pair and, round after round, runs (a) a raw AF_PACKET blast of frames as long as write-bw's full-size frames
 * (TX ring, no protocol: the kernel's per-frame cost) and (b) RC write-bw between a server and a client side, each
 * on its own AF_PACKET port in its own namespace, both in this JVM. Prints each rate, the ratio of the delivered
 * frame rates, and the load average, so a busy machine shows in the numbers.
 */
@Command(name = "veth-bw", mixinStandardHelpOptions = true,
        description = "RC write-bw over a fresh veth pair beside a raw AF_PACKET blast of same-size frames (needs root).")
public final class VethBwCommand implements Callable<Integer> {
    @Range(min = 1, max = Integer.MAX_VALUE)
    @Option(names = {"-s", "--size"}, description = "write-bw message size (default: ${DEFAULT-VALUE})")
    int size = 65536;

    @Range(oneOf = {256, 512, 1024, 2048, 4096})
    @Option(names = {"-m", "--mtu"}, description = "Path MTU (default: ${DEFAULT-VALUE})")
    int mtu = 4096;

    @Range(min = 68, max = 65535)
    @Option(names = "--if-mtu", description = "veth MTU (default: path MTU + 104, as rxe needs for RoCE headers)")
    int ifMtu = -1;

    @Range(min = 1)
    @Option(names = {"-D", "--duration"}, description = "Seconds per measurement (default: ${DEFAULT-VALUE})")
    int seconds = 3;

    @Range(min = 1)
    @Option(names = "--rounds", description = "Interleaved rounds of blast then write-bw (default: ${DEFAULT-VALUE})")
    int rounds = 3;

    @Range(min = 1, max = 16384)
    @Option(names = {"-t", "--tx-depth"}, description = "write-bw outstanding requests (default: ${DEFAULT-VALUE})")
    int txDepth = 128;

    @Option(names = "--framing", description = "roce1 or roce2 (default: ${DEFAULT-VALUE})")
    String framing = "roce2";

    @Option(names = "--driver", description = "write-bw driver: inline or agent (default: ${DEFAULT-VALUE})")
    String driver = "inline";

    @Option(names = "--idle", description = "Engine idle strategy: poll (sleep in poll(2) on the socket after 200 empty passes), "
            + "backoff or busy-spin (default: ${DEFAULT-VALUE})")
    String idle = "poll";

    @Option(names = "--rx-ring", description = "write-bw AF_PACKET RX ring: v2 or v3 (default: ${DEFAULT-VALUE})")
    String rxRing = "v2";

    @Option(names = "--port-mac", description = "own: each port has its own MAC, as a NIC's RoCE engine would (the kernel drops "
            + "RoCEv2 frames for another host at once); interface: the veth's MAC (the kernel IP stack routes every RoCEv2 "
            + "frame to a dead end, InAddrErrors, per-frame cost the blast does not pay) (default: ${DEFAULT-VALUE})")
    String portMac = "own";

    @Option(names = "--tcp", description = "Also run a kernel TCP single stream (64 KiB writes) on the same veth each round")
    boolean tcp;

    @Option(names = {"-v", "--verbose"}, description = "Print both sides' full write-bw reports")
    boolean verbose;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    private static final Pattern ROW = Pattern.compile("(?m)^ (\\d+)\\s+(\\d+)\\s+([0-9.]+)\\s+([0-9.]+)\\s+([0-9.]+)\\s*$");

    @Override
    public Integer call() throws Exception {
        return run(System.out);
    }

    int run(PrintStream out) throws Exception {
        if (mtu < 256 || mtu > 4096 || Integer.bitCount(mtu) != 1) {
            throw new CommandLine.ParameterException(spec.commandLine(), "--mtu: 256, 512, 1024, 2048 or 4096, was " + mtu);
        }
        if (size < 1 || seconds < 1 || rounds < 1) {
            throw new CommandLine.ParameterException(spec.commandLine(), "--size, --duration and --rounds must be positive");
        }
        int linkMtu = ifMtu > 0 ? ifMtu : mtu + 104;
        int frame = fullFrameLength(FramingKind.parse(framing), Math.min(mtu, size));
        int packets = (size + mtu - 1) / mtu;
        out.printf(Locale.ROOT, "veth-bw: RC write-bw %d B messages (%d frames of up to %d B each, %s, path MTU %d) vs raw AF_PACKET "
                + "blast of %d-byte frames; veth MTU %d; %d s each, %d rounds; RX ring %s, TX ring %d slots (both), port MAC %s, idle %s; ICRC: %s; Netty: %s%n",
                size, packets, frame, framing, mtu, frame, linkMtu, seconds, rounds, rxRing,
                org.urdma.transport.link.ethernet.AfPacketLink.TX_SLOTS, portMac, idle, org.urdma.transport.wire.Icrc.implementation(),
                org.urdma.transport.cm.ConnectionManager.nettyTransport());
        List<Double> ratios = new ArrayList<>(), cpuRatios = new ArrayList<>();
        try (Topology t = Topology.create()) {
            String a = t.namespace("a"), b = t.namespace("b");
            t.veth(a, "vbw0", b, "vbw1", Topology.LinkOptions.mtu(linkMtu));
            t.disableIpv6(a);
            t.disableIpv6(b);
            t.addAddress(a, "vbw0", "10.86.0.1/24");
            t.addAddress(b, "vbw1", "10.86.0.2/24");
            out.printf("%-6s %-10s %12s %8s %8s %10s   %s%n", "round", "what", "frames/s", "Gbit/s", "ratio", "CPU ns/fr",
                    "load average");
            for (int r = 1; r <= rounds; r++) {
                String load = loadAverage();
                CpuPerFrame cpu = CpuPerFrame.start(b, "vbw1");
                RawBlast.RxResult raw = RawBlast.vethBaseline(a, "vbw0", b, "vbw1", frame, seconds * 1_000_000_000L,
                        org.urdma.transport.link.ethernet.AfPacketLink.TX_SLOTS);
                long rawCpu = cpu.stop();
                if (verbose) out.println("  CPU ns/frame by thread: " + cpu.breakdown);
                out.printf(Locale.ROOT, "%-6d %-10s %12.0f %8.2f %8s %10d   %s%n", r, "raw blast", raw.framesPerSecond(),
                        raw.framesPerSecond() * frame * 8 / 1e9, "", rawCpu, load);
                load = loadAverage();
                cpu = CpuPerFrame.start(b, "vbw1");
                Result w = writeBw(a, b, 18515 + r, out);
                long ourCpu = cpu.stop();
                if (verbose) out.println("  CPU ns/frame by thread: " + cpu.breakdown);
                double fps = w.msgRate * packets;
                double ratio = fps / raw.framesPerSecond();
                ratios.add(ratio);
                cpuRatios.add((double) rawCpu / ourCpu);
                out.printf(Locale.ROOT, "%-6d %-10s %12.0f %8.2f %8.3f %10d   %s   (%.2f MB/s payload, %s)%n", r, "write-bw", fps,
                        fps * frame * 8 / 1e9, ratio, ourCpu, load, w.mbPerSec, w.note);
                if (tcp) {
                    load = loadAverage();
                    double bytesPerSec = tcpStream(a, b, 28515 + r);
                    out.printf(Locale.ROOT, "%-6d %-10s %12s %8.2f %8s %10s   %s   (%.2f MB/s payload; write-bw / TCP = %.3f)%n", r,
                            "tcp stream", "", bytesPerSec * 8 / 1e9, "", "", load, bytesPerSec / (1 << 20),
                            w.mbPerSec / (bytesPerSec / (1 << 20)));
                }
                out.flush();
            }
        }
        double[] sorted = ratios.stream().mapToDouble(Double::doubleValue).sorted().toArray();
        double[] cpuSorted = cpuRatios.stream().mapToDouble(Double::doubleValue).sorted().toArray();
        out.printf(Locale.ROOT, "ratio write-bw / raw blast (frames/s): median %.3f, min %.3f, max %.3f over %d rounds; load now %s%n",
                sorted[sorted.length / 2], sorted[0], sorted[sorted.length - 1], sorted.length, loadAverage());
        out.printf(Locale.ROOT, "CPU per frame, raw blast / write-bw (the rate ratio a CPU-bound run can reach): median %.3f, min %.3f, max %.3f%n",
                cpuSorted[cpuSorted.length / 2], cpuSorted[0], cpuSorted[cpuSorted.length - 1]);
        return 0;
    }

    /**
     * CPU time (user + system) of this process's Java threads (both ends of the link live here; not the JIT compilers,
     * GC or this sampler) per frame the receiving veth counted, sampled every 200 ms while a run goes on; the median over
     * busy intervals where no thread ended, so set-up, warm-up and idle tails do not count. Unlike the rates it hardly depends on how many other processes share the cores.
     */
    static final class CpuPerFrame {
        private final Thread sampler;
        private final List<long[]> samples = new ArrayList<>();
        private final List<java.util.Map<String, Long>> threads = new ArrayList<>();
        /** Per-thread CPU ns per frame over the busy span, after {@link #stop()}. */
        String breakdown = "";
        private volatile boolean stop;

        private CpuPerFrame(String ns, String ifname) {
            sampler = Thread.ofPlatform().daemon().name("veth-bw-cpu").start(() -> Netns.run(ns, () -> {
                java.lang.management.ThreadMXBean mx = java.lang.management.ManagementFactory.getThreadMXBean();
                long self = Thread.currentThread().threadId();
                while (!stop) {
                    long rx = rxPackets(ifname);
                    long cpu = 0;
                    java.util.Map<String, Long> perThread = new java.util.HashMap<>();
                    for (java.lang.management.ThreadInfo ti : mx.getThreadInfo(mx.getAllThreadIds())) {
                        if (ti == null || ti.getThreadId() == self) continue;
                        long t = mx.getThreadCpuTime(ti.getThreadId());
                        if (t <= 0) continue;
                        cpu += t;
                        perThread.merge(ti.getThreadName() + "#" + ti.getThreadId(), t, Long::sum);
                        perThread.merge(ti.getThreadName() + "#" + ti.getThreadId() + "(user)", mx.getThreadUserTime(ti.getThreadId()), Long::sum);
                    }
                    synchronized (samples) {
                        samples.add(new long[] {cpu, rx});
                        threads.add(perThread);
                    }
                    try {
                        Thread.sleep(200);
                    } catch (InterruptedException e) {
                        return;
                    }
                }
            }));
        }

        static CpuPerFrame start(String ns, String ifname) {
            return new CpuPerFrame(ns, ifname);
        }

        /** Median CPU ns per frame over intervals that moved at least a fifth of the busiest one's frames; -1 if none. */
        long stop() throws InterruptedException {
            stop = true;
            sampler.join();
            List<long[]> s;
            synchronized (samples) {
                s = new ArrayList<>(samples);
            }
            long busiest = 0;
            for (int i = 1; i < s.size(); i++) busiest = Math.max(busiest, s.get(i)[1] - s.get(i - 1)[1]);
            List<Long> per = new ArrayList<>();
            for (int i = 1; i < s.size(); i++) {
                long frames = s.get(i)[1] - s.get(i - 1)[1];
                long cpu = s.get(i)[0] - s.get(i - 1)[0];
                if (frames > 0 && frames * 5 >= busiest && cpu > 0) per.add((s.get(i)[0] - s.get(i - 1)[0]) / frames);
            }
            if (per.isEmpty()) return -1;
            int first = -1, last = -1;
            for (int i = 1; i < s.size(); i++) {
                if ((s.get(i)[1] - s.get(i - 1)[1]) * 5 >= busiest && busiest > 0) {
                    if (first < 0) first = i - 1;
                    last = i;
                }
            }
            long spanFrames = s.get(last)[1] - s.get(first)[1];
            StringBuilder sb = new StringBuilder();
            java.util.Map<String, Long> a, b;
            synchronized (samples) {
                a = threads.get(first);
                b = threads.get(last);
            }
            b.entrySet().stream().filter(e -> a.containsKey(e.getKey()))
                    .map(e -> java.util.Map.entry(e.getKey(), (e.getValue() - a.get(e.getKey())) / Math.max(1, spanFrames)))
                    .filter(e -> e.getValue() > 20).sorted((x, y) -> Long.compare(y.getValue(), x.getValue()))
                    .forEach(e -> sb.append(' ').append(e.getKey()).append('=').append(e.getValue()));
            breakdown = sb.toString().trim();
            per.sort(null);
            return per.get(per.size() / 2);
        }

        /** Received packets of {@code ifname} in the calling thread's namespace (/proc/thread-self/net/dev). */
        private static long rxPackets(String ifname) {
            try {
                for (String line : Files.readAllLines(Path.of("/proc/thread-self/net/dev"))) {
                    int colon = line.indexOf(':');
                    if (colon > 0 && line.substring(0, colon).trim().equals(ifname)) {
                        return Long.parseLong(line.substring(colon + 1).trim().split("\\s+")[1]);
                    }
                }
            } catch (IOException e) {
                // counted as no progress
            }
            return 0;
        }
    }

    private record Result(double msgRate, double mbPerSec, String note) {
    }

    /** Kernel TCP, one stream from namespace a to b over the same veth for the run's duration; bytes/s received. */
    private double tcpStream(String a, String b, int port) throws Exception {
        java.net.ServerSocket ss = Netns.call(b, () -> {
            java.net.ServerSocket s = new java.net.ServerSocket();
            s.setReuseAddress(true);
            s.bind(new java.net.InetSocketAddress("10.86.0.2", port));
            return s;
        });
        try (ss) {
            CompletableFuture<double[]> sink = CompletableFuture.supplyAsync(() -> {
                try (java.net.Socket c = ss.accept()) {
                    java.io.InputStream in = c.getInputStream();
                    byte[] buf = new byte[1 << 20];
                    long total = 0, first = 0;
                    int n;
                    while ((n = in.read(buf)) > 0) {
                        if (first == 0) first = System.nanoTime();
                        total += n;
                    }
                    return new double[] {total, System.nanoTime() - first};
                } catch (IOException e) {
                    throw new IllegalStateException("tcp stream: " + e.getMessage(), e);
                }
            }, r -> Thread.ofPlatform().name("veth-bw-tcp").start(r));
            Netns.call(a, () -> {
                try (java.net.Socket c = new java.net.Socket("10.86.0.2", port)) {
                    java.io.OutputStream o = c.getOutputStream();
                    byte[] buf = new byte[65536];
                    long end = System.nanoTime() + seconds * 1_000_000_000L;
                    while (System.nanoTime() < end) o.write(buf);
                }
                return null;
            });
            double[] got = sink.get(seconds + 30L, TimeUnit.SECONDS);
            return got[1] <= 0 ? 0 : got[0] * 1e9 / got[1];
        }
    }

    /** One write-bw run: the server on a thread in namespace b, the client on this thread in namespace a. */
    private Result writeBw(String a, String b, int port, PrintStream out) throws Exception {
        CompletableFuture<String> server = CompletableFuture.supplyAsync(() -> side(b, "vbw1", "10.86.0.12/24", "02:75:72:64:00:0b",
                null, port), r -> Thread.ofPlatform().name("veth-bw-server").start(r));
        Thread.sleep(300); // the server listens before the client connects (the client also retries)
        String client = side(a, "vbw0", "10.86.0.11/24", "02:75:72:64:00:0a", "10.86.0.2", port);
        String s = server.get(seconds + 120L, TimeUnit.SECONDS);
        if (verbose) {
            for (String line : (client + s).split("\n")) {
                if (line.contains("#bytes") || line.matches(" \\d+ .*") || line.contains("packets sent") || line.contains("link:")
                        || line.contains("responder:")) out.println("  " + line.trim());
            }
        }
        Matcher m = ROW.matcher(client);
        if (!m.find()) throw new IllegalStateException("write-bw printed no result row:\n" + client + "\nserver:\n" + s);
        Matcher rt = Pattern.compile("retransmitted (\\d+), retry rounds (\\d+), ACK timeouts (\\d+)").matcher(client);
        String note = rt.find() ? "retransmitted " + rt.group(1) + ", ACK timeouts " + rt.group(3) : "";
        return new Result(Double.parseDouble(m.group(5)) * 1e6, Double.parseDouble(m.group(4)), note);
    }

    private String side(String ns, String ifname, String ip, String mac, String peer, int port) {
        List<String> args = new ArrayList<>(List.of("--link", "afpacket:" + ifname, "--framing", framing, "--ip", ip,
                "-s", String.valueOf(size), "-m", String.valueOf(mtu), "-t", String.valueOf(txDepth), "-D", String.valueOf(seconds),
                "--driver", driver, "--idle", idle, "--rx-ring", rxRing, "-p", String.valueOf(port), "--cm-timeout", "30",
                "--exchange", "urdma")); // -D (a timed run) needs urdma's exchange: perftest's has no duration handshake here
        switch (portMac) {
            case "own" -> args.addAll(List.of("--mac", mac));
            case "interface" -> {
            }
            default -> throw new IllegalArgumentException("--port-mac: own or interface, was '" + portMac + "'");
        }
        if (peer != null) args.add(peer);
        try {
            return Netns.call(ns, () -> {
                WriteBwCommand c = new WriteBwCommand();
                new CommandLine(c).parseArgs(args.toArray(String[]::new));
                ByteArrayOutputStream buf = new ByteArrayOutputStream();
                int rc;
                try (PrintStream p = new PrintStream(buf, true, StandardCharsets.UTF_8)) {
                    rc = PerfRunner.run(PerfTest.WRITE_BW, c.o, c.net, p);
                }
                String text = buf.toString(StandardCharsets.UTF_8);
                if (rc != 0) throw new IllegalStateException("write-bw " + (peer == null ? "server" : "client") + " exited " + rc + ":\n" + text);
                return text;
            });
        } catch (RuntimeException e) {
            throw e;
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    /** Length of a full-payload RDMA WRITE middle packet in this framing (what most of write-bw's frames are). */
    static int fullFrameLength(FramingKind kind, int payload) {
        PortIdentity port = PortIdentity.of(new byte[] {2, 0, 0, 0, 0, 1}, "10.86.0.11/24");
        byte[] gid = new org.urdma.transport.port.GidTable(port).gidFor(kind).toBytes();
        if (kind == FramingKind.PAXI_LITE) throw new IllegalArgumentException("--framing: cannot frame an RDMA WRITE in " + kind.cliName());
        return new LinkFraming(kind, port.mac(), gid).frameLength(0x07, payload); // RC RDMA WRITE middle
    }

    static String loadAverage() {
        try {
            String[] f = Files.readString(Path.of("/proc/loadavg")).trim().split("\\s+");
            return f[0] + " " + f[1] + " " + f[2];
        } catch (IOException | RuntimeException e) {
            return "n/a";
        }
    }
}
