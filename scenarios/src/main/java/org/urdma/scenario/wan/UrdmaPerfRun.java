package org.urdma.scenario.wan;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.urdma.cli.UrdmaCli;

/**
 * A urdma row: {@code urdma perf TEST} as users run it, one JVM per side ({@code ip netns exec}), the server (the
 * receiver: write-bw's target) in h2, the client in h1, over AF_PACKET on the hosts' veths with their own port MACs and
 * addresses, urdma's exchange and {@code -D SECONDS}; then the row's own arguments. Goodput: the client's message rate
 * times the size (its BW average, sampled between perftest's -D margins);
 * retransmitted: the client's count; verified: the server's memory check. CPU of the receiver: utime + stime of the
 * server JVM's /proc/PID/stat, from when it waits for the client (start-up excluded) to its last sample before exit.
 */
final class UrdmaPerfRun {
    private static final Pattern ROW = Pattern.compile("(?m)^\\s*(\\d+)\\s+(\\d+)\\s+([0-9.]+)\\s+([0-9.]+)\\s+([0-9.]+)\\s*$");
    private static final Pattern RESENT = Pattern.compile("retransmitted (\\d+)");
    private static final Pattern FEC = Pattern.compile("FEC[- ]repaired (\\d+)");
    private static final Pattern VERIFIED = Pattern.compile("verified: (\\d+) bytes match");
    private static final long CLOCK_TICKS = 100; // USER_HZ on Linux x86-64
    /** The rows' engine driver and idle strategy ({@code -Durdma.scenario.driver}, {@code -Durdma.scenario.idle}: to compare). */
    static final String DRIVER = System.getProperty("urdma.scenario.driver", "inline");
    static final String IDLE = System.getProperty("urdma.scenario.idle", "poll");

    private UrdmaPerfRun() {
    }

    static WanCell run(WanBed bed, WanProtocol p, WanPath path, int seconds) throws Exception {
        List<String> perf = new ArrayList<>(List.of("perf"));
        perf.addAll(p.perfArgs(path.rateGbps()));
        // the ACK timeout must outlast a round trip and a full bottleneck queue: 4.096 us x 2^code
        int code = 14;
        while (4.096e-6 * (1L << code) < 2 * path.rttMs() / 1e3 + path.bufferBytes() * 8 / (path.rateGbps() * 1e9) + 0.01) {
            code++;
        }
        List<String> common = List.of("--link", "afpacket:eth0", "--exchange", "urdma", "-D", String.valueOf(seconds), "-s",
            "65536", "-t", "512", "--report_gbits", "--timeout", String.valueOf(code), "--retry", "7", "--driver", DRIVER,
            "--idle", IDLE);
        List<String> server = concat(perf, common, List.of("--ip", "10.77.0.12/24", "--mac", "02:75:72:64:00:0c"));
        List<String> client = concat(perf, common, List.of("--ip", "10.77.0.11/24", "--mac", "02:75:72:64:00:0b",
            WanPath.H2_IP));
        Process srv = start(bed.namespace("h2"), server, rxFrames(path));
        StringBuilder serverOut = new StringBuilder();
        try {
            awaitLine(srv, serverOut, "* Waiting for client");
            long cpu0 = cpuTicks(srv.pid());
            long[] cpuLast = {cpu0};
            Process cl = start(bed.namespace("h1"), client, rxFrames(path));
            // the client's CPU from when the connection is up (the server prints the remote address), to its last sample
            long[] clientCpu = {-1, 0};
            Thread sampler = Thread.ofPlatform().daemon().start(() -> {
                while (srv.isAlive()) {
                    long t = cpuTicks(srv.pid());
                    if (t >= 0) {
                        cpuLast[0] = t;
                    }
                    long c = cpuTicks(cl.pid());
                    if (c >= 0 && clientCpu[0] < 0) {
                        synchronized (serverOut) {
                            if (serverOut.indexOf(" remote address") >= 0) {
                                clientCpu[0] = c;
                            }
                        }
                    } else if (c >= 0) {
                        clientCpu[1] = c;
                    }
                    try {
                        Thread.sleep(50);
                    } catch (InterruptedException e) {
                        return;
                    }
                }
            });
            CompletableFuture<String> clientOut = drain(cl);
            long timeout = seconds + 120L;
            boolean clientDone = cl.waitFor(timeout, TimeUnit.SECONDS);
            boolean serverDone = srv.waitFor(20, TimeUnit.SECONDS);
            sampler.join(1000);
            if (!clientDone) {
                cl.destroyForcibly();
            }
            String co = clientDone ? clientOut.get(10, TimeUnit.SECONDS) : "";
            String so;
            synchronized (serverOut) {
                so = serverOut.toString();
            }
            if (Boolean.getBoolean("urdma.scenario.verbose")) {
                System.err.println("--- client:\n" + co + "--- server:\n" + so);
            }
            Matcher row = ROW.matcher(co);
            // the message rate (6 decimals of Mpps) x size, not the BW column's 2 decimals of Gbit/s (1 % of 1 Gbit/s)
            double gbps = row.find() ? Double.parseDouble(row.group(5)) * 1e6 * Long.parseLong(row.group(1)) * 8 / 1e9 : 0;
            Matcher resent = RESENT.matcher(co);
            Matcher fec = FEC.matcher(so + co); // the receiver (server) counts what it rebuilt
            boolean verified = VERIFIED.matcher(so).find();
            String note = "";
            if (!clientDone) {
                note = "client did not end within " + timeout + " s";
            } else if (cl.exitValue() != 0) {
                note = "client exited " + cl.exitValue() + ": " + lastLine(co);
            } else if (!serverDone) {
                note = "server did not end";
            }
            long bytes = (long) (gbps * 1e9 / 8 * seconds);
            double cpuNs = bytes == 0 ? Double.NaN : (cpuLast[0] - cpu0) * (1e9 / CLOCK_TICKS) / bytes;
            if (bytes > 0 && clientCpu[0] >= 0) {
                String sender = String.format(Locale.ROOT, "sender CPU %.2f ns/B", (clientCpu[1] - clientCpu[0]) * (1e9 / CLOCK_TICKS) / bytes);
                note = note.isEmpty() ? sender : note + "; " + sender;
            }
            return new WanCell(p.key(), path.rttMs(), path.lossPercent(), path.rateGbps(), bytes, seconds,
                resent.find() ? Long.parseLong(resent.group(1)) : -1, fec.find() ? Long.parseLong(fec.group(1)) : -1,
                verified && clientDone && cl.exitValue() == 0 && serverDone, cpuNs, note);
        } finally {
            srv.destroyForcibly();
        }
    }

    /** The last line that says something (a failed run's one-line error). */
    private static String lastLine(String out) {
        String[] lines = out.strip().split("\n");
        for (int i = lines.length - 1; i >= 0; i--) {
            if (lines[i].startsWith("urdma ")) {
                return lines[i].strip();
            }
        }
        return lines.length == 0 ? "" : lines[lines.length - 1].strip();
    }

    /** utime + stime of a process, in clock ticks; -1 when it is gone. */
    static long cpuTicks(long pid) {
        try {
            String stat = Files.readString(Path.of("/proc/" + pid + "/stat"));
            String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
            return Long.parseLong(f[11]) + Long.parseLong(f[12]); // fields 14 and 15 of proc(5)
        } catch (IOException | RuntimeException e) {
            return -1;
        }
    }

    @SafeVarargs
    private static List<String> concat(List<String>... parts) {
        List<String> all = new ArrayList<>();
        for (List<String> x : parts) {
            all.addAll(x);
        }
        return all;
    }

    /** How long a receiver's engine may be descheduled before its RX ring overflows (a CPU hog's scheduler slices). */
    static final double RING_STALL_SECONDS = 0.1;

    /**
     * RX ring frames of a urdma host: {@link #RING_STALL_SECONDS} of MTU frames at the bottleneck rate (a power of two,
     * at least AfPacketLink's 1024), as the scenario gives kernel TCP 64 MB of socket buffer. The kernel receives TCP in
     * softirq whoever holds the core; urdma's frames wait in the ring for the engine thread, and 1024 frames are 34 ms
     * at 1 Gbit/s: beside two CPU hogs the receiver's ring overflowed by thousands of frames in 8 s.
     */
    static int rxFrames(WanPath path) {
        long frames = (long) (path.rateGbps() * 1e9 / 8 * RING_STALL_SECONDS / WanPath.MTU);
        return (int) Math.max(1024, Math.min(1 << 16, Long.highestOneBit(Math.max(1, frames - 1)) << 1));
    }

    /** {@code urdma ARGS} in a JVM in namespace {@code ns}, with this JVM's flags and class path and an RX ring of {@code rxFrames}. */
    static Process start(String ns, List<String> args, int rxFrames) throws IOException {
        List<String> cmd = new ArrayList<>(List.of("ip", "netns", "exec", ns,
            ProcessHandle.current().info().command().orElse(Path.of(System.getProperty("java.home"), "bin", "java").toString())));
        cmd.add("--enable-native-access=ALL-UNNAMED");
        for (String f : ManagementFactory.getRuntimeMXBean().getInputArguments()) {
            if ((f.startsWith("--add-") || f.startsWith("--sun-misc") || f.startsWith("-XX:") || f.startsWith("-Durdma.")
                || f.startsWith("-Dchronicle") || f.startsWith("-Dslf4j")) && !cmd.contains(f)) {
                cmd.add(f);
            }
        }
        if (cmd.stream().noneMatch(f -> f.startsWith("-Durdma.pollSpins="))) {
            // sleep in ppoll at once rather than spin 200 passes: on two cores the hosts' engines and the switch share
            // them, and a spinning sender is preempted for whole scheduler slices (0.944 against 0.957 at 20 ms, 0 %)
            cmd.add("-Durdma.pollSpins=0");
        }
        if (cmd.stream().noneMatch(f -> f.startsWith("-Durdma.rxFrames="))) {
            cmd.add("-Durdma.rxFrames=" + rxFrames);
        }
        cmd.addAll(List.of("-cp", System.getProperty("java.class.path"), UrdmaCli.class.getName()));
        cmd.addAll(args);
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        p.getOutputStream().close();
        return p;
    }

    private static CompletableFuture<String> drain(Process p) {
        return CompletableFuture.supplyAsync(() -> {
            try {
                return new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            } catch (IOException e) {
                return "";
            }
        }, r -> Thread.ofPlatform().daemon().start(r));
    }

    /** Waits for the server's ready line; keeps collecting its output into {@code seen} afterwards. */
    static void awaitLine(Process p, StringBuilder seen, String prefix) throws IOException {
        BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
        String line;
        while ((line = r.readLine()) != null) {
            seen.append(line).append('\n');
            if (line.startsWith(prefix)) {
                Thread.ofPlatform().daemon().start(() -> {
                    try {
                        String l;
                        while ((l = r.readLine()) != null) {
                            synchronized (seen) {
                                seen.append(l).append('\n');
                            }
                        }
                    } catch (IOException ignored) {
                        // the process ended
                    }
                });
                return;
            }
        }
        throw new IllegalStateException(String.format(Locale.ROOT, "urdma perf server ended before it was ready:%n%s", seen));
    }
}
