package org.urdma.scenario.wan;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Runs one row of {@code scenario copy} on the cell's path and measures it: the tool's command in h1, timed from its
 * start to its exit; then {@code sha256sum -c} of the workload's manifest in the destination; CPU of the sending side
 * (the command's process tree, from {@code /usr/bin/time}) and of the receiving side (the urdma server, or sshd with
 * its sessions); h2's link bytes both ways (wire bytes).
 */
final class CopyRowRun {
    private static final double CLOCK_TICKS = 100; // USER_HZ on Linux x86-64
    private static final Pattern TIME = Pattern.compile("(?m)^urdma-time ([0-9.]+) ([0-9.]+)\\s*$");
    private static final String URDMA_SERVER_IP = "10.77.0.12/24";
    private static final String URDMA_CLIENT_IP = "10.77.0.11/24";

    private CopyRowRun() {
    }

    /** One tool row: copies {@code made} into an emptied {@code dst}, verifies it, and empties {@code dst} again. */
    static CopyCell run(WanBed bed, SshBed ssh, CopyRow row, CopyWorkload w, CopyWorkload.Made made, WanPath path, Path dst,
                        int timeoutSeconds) throws Exception {
        SshBed.deleteTree(dst);
        Files.createDirectories(dst);
        long wire0 = wireBytes(bed);
        Process server = null;
        long rx0;
        try {
            String cmd;
            // the tools put DST/data; urdma copy's HOST:u is relative to the server's root (DST), so DST/u/data
            Path landed = row == CopyRow.URDMA_COPY || row == CopyRow.URDMA_COPY_TCP ? dst.resolve("u") : dst;
            String sshCmd = ssh == null ? "ssh" : ssh.command();
            String remote = "root@" + WanPath.H2_IP;
            switch (row) {
                case URDMA_COPY -> {
                    server = UrdmaPerfRun.start(bed.namespace("h2"), List.of("serve", "--root", dst.toString(), "--link",
                        "afpacket:eth0", "--ip", URDMA_SERVER_IP), UrdmaPerfRun.rxFrames(path));
                    UrdmaPerfRun.awaitLine(server, new StringBuilder(), "urdma serve: serving");
                    cmd = String.join(" ", launcher().stream().map(CopyRowRun::quote).toList()) + " copy --quiet --link afpacket:eth0 --ip " + URDMA_CLIENT_IP + " "
                        + quote(made.data().toString()) + " " + WanPath.H2_IP + ":u";
                }
                case URDMA_COPY_TCP -> {
                    server = UrdmaPerfRun.start(bed.namespace("h2"), List.of("serve", "--root", dst.toString(), "--transport", "tcp"),
                        UrdmaPerfRun.rxFrames(path));
                    UrdmaPerfRun.awaitLine(server, new StringBuilder(), "urdma serve: serving");
                    cmd = String.join(" ", launcher().stream().map(CopyRowRun::quote).toList()) + " copy --quiet --transport tcp --cc bbr "
                        + quote(made.data().toString()) + " " + WanPath.H2_IP + ":u";
                }
                case SCP -> cmd = "scp -r -q " + sshCmd.substring("ssh".length()).strip() + " " + quote(made.data().toString()) + " "
                    + remote + ":" + quote(dst.toString());
                case RSYNC -> cmd = "rsync -a --partial -e " + quote(sshCmd) + " " + quote(made.data().toString()) + " " + remote
                    + ":" + quote(dst + "/");
                case TAR_SSH -> cmd = "tar -C " + quote(made.dir().toString()) + " -cf - data | " + sshCmd + " " + remote + " "
                    + quote("tar -C " + quote(dst.toString()) + " -xf -");
                default -> throw new IllegalArgumentException("not a tool row: " + row.key());
            }
            rx0 = server != null ? UrdmaPerfRun.cpuTicks(server.pid()) : ssh != null ? ssh.cpuTicks() : -1;
            long t0 = System.nanoTime();
            // the shell reports the tool's process tree CPU (user + system of its reaped children) as it exits
            Process p = new ProcessBuilder("ip", "netns", "exec", bed.namespace("h1"), "bash", "-c",
                cmd + "; rc=$?; read u s < <(awk '{print $16, $17}' /proc/$$/stat); echo urdma-time $u $s; exit $rc")
                .redirectErrorStream(true).start();
            p.getOutputStream().close();
            var outF = java.util.concurrent.CompletableFuture.supplyAsync(() -> {
                try {
                    return new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
                } catch (IOException e) {
                    return "";
                }
            });
            boolean done = p.waitFor(timeoutSeconds, TimeUnit.SECONDS);
            double seconds = (System.nanoTime() - t0) / 1e9;
            if (!done) {
                p.destroyForcibly();
            }
            String out = done ? outF.get(10, TimeUnit.SECONDS) : "";
            Thread.sleep(300); // sshd reaps its session: its CPU lands in the master's cutime
            long rx1 = server != null ? UrdmaPerfRun.cpuTicks(server.pid()) : ssh != null ? ssh.cpuTicks() : -1;
            long wire = wireBytes(bed) - wire0;
            Matcher m = TIME.matcher(out);
            double sender = m.find() ? (Double.parseDouble(m.group(1)) + Double.parseDouble(m.group(2))) / CLOCK_TICKS : Double.NaN;
            double receiver = rx0 >= 0 && rx1 >= 0 ? (rx1 - rx0) / CLOCK_TICKS : Double.NaN;
            String note = "";
            if (!done) {
                note = "did not end within " + timeoutSeconds + " s";
            } else if (p.exitValue() != 0) {
                note = "exited " + p.exitValue() + ": " + lastLine(out.replaceAll("(?m)^urdma-time.*$", ""));
            }
            String check = Files.isDirectory(landed) ? verify(made, landed) : "nothing arrived in " + landed;
            if (!check.isEmpty()) {
                note = note.isEmpty() ? check : note + "; " + check;
            }
            return new CopyCell(w.key(), path.rttMs(), path.lossPercent(), row.key(), path.rateGbps(), seconds, made.payloadBytes(),
                sender, receiver, wire0 >= 0 ? wire : -1, done && p.exitValue() == 0 && check.isEmpty(), note);
        } finally {
            if (server != null) {
                server.destroy();
                if (!server.waitFor(5, TimeUnit.SECONDS)) {
                    server.destroyForcibly();
                }
            }
            SshBed.deleteTree(dst);
        }
    }

    /** The perf write-bw --wan ceiling: the WAN scenario's own row on this path. */
    static CopyCell perfCeiling(WanBed bed, WanPath path, int seconds) throws Exception {
        WanProtocol p = WanProtocol.ALL.stream().filter(x -> x.key().equals("urdma-wan")).findFirst().orElseThrow();
        long wire0 = wireBytes(bed);
        WanCell c = UrdmaPerfRun.run(bed, p, path, seconds);
        long wire = wireBytes(bed) - wire0;
        Matcher s = Pattern.compile("sender CPU ([0-9.]+) ns/B").matcher(c.note());
        double senderNs = s.find() ? Double.parseDouble(s.group(1)) : Double.NaN;
        return new CopyCell("-", path.rttMs(), path.lossPercent(), CopyRow.PERF_WAN.key(), path.rateGbps(), c.seconds(), c.bytes(),
            senderNs * c.bytes() / 1e9, c.cpuNsPerByte() * c.bytes() / 1e9, -1, c.verified(),
            "memory to memory; wire bytes include connection set-up" + (wire0 < 0 ? "" : ", " + wire + " B on h2's link"));
    }

    private static final Pattern IPERF_BPS = Pattern.compile("\"sum_received\"\\s*:\\s*\\{[^}]*\"bytes\"\\s*:\\s*([0-9]+)[^}]*"
        + "\"bits_per_second\"\\s*:\\s*([0-9.e+]+)");
    private static final Pattern IPERF_CPU = Pattern.compile("\"host_total\"\\s*:\\s*([0-9.]+)[^}]*\"remote_total\"\\s*:\\s*([0-9.]+)");

    /** The iperf3 -C bbr ceiling: memory to memory over kernel TCP BBR for {@code seconds}. */
    static CopyCell iperfCeiling(WanBed bed, WanPath path, int seconds) throws Exception {
        Process server = new ProcessBuilder("ip", "netns", "exec", bed.namespace("h2"), "iperf3", "-s", "-1", "-B", WanPath.H2_IP)
            .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
        try {
            Thread.sleep(500);
            long wire0 = wireBytes(bed);
            Process c = new ProcessBuilder("ip", "netns", "exec", bed.namespace("h1"), "iperf3", "-c", WanPath.H2_IP, "-C", "bbr",
                "-t", String.valueOf(seconds), "-J").redirectErrorStream(true).start();
            String json = new String(c.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            c.waitFor(seconds + 60L, TimeUnit.SECONDS);
            long wire = wireBytes(bed) - wire0;
            Matcher m = IPERF_BPS.matcher(json);
            Matcher cpu = IPERF_CPU.matcher(json);
            if (!m.find()) {
                return new CopyCell("-", path.rttMs(), path.lossPercent(), CopyRow.IPERF3_BBR.key(), path.rateGbps(), seconds, 0,
                    Double.NaN, Double.NaN, -1, false, "iperf3: " + lastLine(json));
            }
            long bytes = Long.parseLong(m.group(1));
            double bps = Double.parseDouble(m.group(2));
            double secs = bps > 0 ? bytes * 8 / bps : seconds;
            double hostCpu = Double.NaN;
            double remoteCpu = Double.NaN;
            if (cpu.find()) {
                hostCpu = Double.parseDouble(cpu.group(1)) / 100 * secs;
                remoteCpu = Double.parseDouble(cpu.group(2)) / 100 * secs;
            }
            return new CopyCell("-", path.rttMs(), path.lossPercent(), CopyRow.IPERF3_BBR.key(), path.rateGbps(), secs, bytes,
                hostCpu, remoteCpu, wire0 >= 0 ? wire : -1, c.exitValue() == 0, "memory to memory");
        } finally {
            server.destroyForcibly();
            server.waitFor(5, TimeUnit.SECONDS);
        }
    }

    /** {@code sha256sum -c} of the manifest in {@code dst}: "" when every file matches, else what failed. */
    private static String verify(CopyWorkload.Made made, Path dst) throws IOException, InterruptedException {
        Process p = new ProcessBuilder("sha256sum", "-c", "--quiet", made.manifest().toString()).directory(dst.toFile())
            .redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        return p.waitFor() == 0 ? "" : "sha256sum -c failed: " + lastLine(out);
    }

    /** Bytes h2's link moved both ways, from its kernel counters; -1 when they cannot be read. */
    private static long wireBytes(WanBed bed) {
        try {
            Process p = new ProcessBuilder("ip", "netns", "exec", bed.namespace("h2"), "cat", "/sys/class/net/eth0/statistics/rx_bytes",
                "/sys/class/net/eth0/statistics/tx_bytes").redirectErrorStream(true).start();
            String[] v = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim().split("\\s+");
            p.waitFor();
            return Long.parseLong(v[0]) + Long.parseLong(v[1]);
        } catch (IOException | InterruptedException | RuntimeException e) {
            return -1;
        }
    }

    /** The {@code urdma} launcher of this checkout (the jar this JVM runs from, with its flags). */
    private static List<String> launcher() {
        List<String> cmd = new ArrayList<>();
        cmd.add(ProcessHandle.current().info().command().orElse(Path.of(System.getProperty("java.home"), "bin", "java").toString()));
        cmd.add("--enable-native-access=ALL-UNNAMED");
        for (String f : java.lang.management.ManagementFactory.getRuntimeMXBean().getInputArguments()) {
            if (f.startsWith("--add-") || f.startsWith("--sun-misc") || f.startsWith("-XX:")) {
                cmd.add(f);
            }
        }
        cmd.addAll(List.of("-cp", System.getProperty("java.class.path"), org.urdma.cli.UrdmaCli.class.getName()));
        return cmd;
    }

    private static String quote(String s) {
        return "'" + s.replace("'", "'\\''") + "'";
    }

    private static String lastLine(String out) {
        String[] lines = out.strip().split("\n");
        return lines.length == 0 ? "" : lines[lines.length - 1].strip();
    }

    static String num(double d) {
        return String.format(Locale.ROOT, "%.3f", d);
    }
}
