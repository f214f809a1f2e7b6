package org.urdma.scenario.wan;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * OpenSSH between the scenario's hosts: an sshd started inside h2 (listening on h2's address only) with a host key and
 * a client key pair generated into a temporary directory, and the client options that use them (no known_hosts, no
 * agent, no password). {@link #close()} stops the sshd (by its pid) and deletes the keys.
 */
final class SshBed implements AutoCloseable {
    private final Path dir;
    private final Process sshd;

    private SshBed(Path dir, Process sshd) {
        this.dir = dir;
        this.sshd = sshd;
    }

    static SshBed start(WanBed bed) throws IOException, InterruptedException {
        Path sshdBinary = Path.of("/usr/sbin/sshd");
        if (!Files.isExecutable(sshdBinary)) {
            throw new IllegalStateException("scenario copy: /usr/sbin/sshd is missing (apt-get install openssh-server)");
        }
        Path dir = Files.createTempDirectory("urdma-ssh");
        try {
            run(List.of("ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", dir.resolve("host_key").toString()));
            run(List.of("ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", dir.resolve("client_key").toString()));
            Files.copy(dir.resolve("client_key.pub"), dir.resolve("authorized_keys"));
            Files.createDirectories(Path.of("/run/sshd")); // its privilege-separation directory
            String config = String.join("\n", "ListenAddress " + WanPath.H2_IP, "Port 22", "HostKey " + dir.resolve("host_key"),
                "AuthorizedKeysFile " + dir.resolve("authorized_keys"), "PermitRootLogin prohibit-password",
                "PasswordAuthentication no", "KbdInteractiveAuthentication no", "UsePAM no", "StrictModes no",
                "PidFile " + dir.resolve("sshd.pid"), "Subsystem sftp internal-sftp", "") ;
            Files.writeString(dir.resolve("sshd_config"), config);
            Process p = new ProcessBuilder("ip", "netns", "exec", bed.namespace("h2"), sshdBinary.toString(), "-D", "-e", "-f",
                dir.resolve("sshd_config").toString()).redirectErrorStream(true).redirectOutput(dir.resolve("sshd.log").toFile()).start();
            SshBed ssh = new SshBed(dir, p);
            ssh.awaitReady(bed);
            return ssh;
        } catch (IOException | RuntimeException | InterruptedException e) {
            deleteTree(dir);
            throw e;
        }
    }

    /** The ssh options of every client command: the generated key, no host checks, no agent, no prompts. */
    List<String> options() {
        return List.of("-i", dir.resolve("client_key").toString(), "-o", "StrictHostKeyChecking=no", "-o",
            "UserKnownHostsFile=/dev/null", "-o", "LogLevel=ERROR", "-o", "BatchMode=yes", "-o", "IdentitiesOnly=yes");
    }

    /** {@link #options()} as one string for {@code rsync -e} and {@code sh -c}. */
    String command() {
        return "ssh " + String.join(" ", options());
    }

    /** CPU time (utime + stime of sshd and its reaped sessions) in clock ticks: the receiving side of scp, rsync and tar. */
    long cpuTicks() {
        try {
            String stat = Files.readString(Path.of("/proc/" + sshd.pid() + "/stat"));
            String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
            // fields 14-17 of proc(5): utime, stime, cutime, cstime
            return Long.parseLong(f[11]) + Long.parseLong(f[12]) + Long.parseLong(f[13]) + Long.parseLong(f[14]);
        } catch (IOException | RuntimeException e) {
            return -1;
        }
    }

    private void awaitReady(WanBed bed) throws IOException, InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        List<String> probe = new ArrayList<>(List.of("ip", "netns", "exec", bed.namespace("h1"), "ssh"));
        probe.addAll(options());
        probe.addAll(List.of("-o", "ConnectTimeout=2", "root@" + WanPath.H2_IP, "true"));
        while (System.nanoTime() < deadline) {
            if (!sshd.isAlive()) {
                throw new IllegalStateException("scenario copy: sshd in h2 ended: " + Files.readString(dir.resolve("sshd.log")).strip());
            }
            Process p = new ProcessBuilder(probe).redirectErrorStream(true).start();
            p.getInputStream().readAllBytes();
            if (p.waitFor() == 0) {
                return;
            }
            Thread.sleep(200);
        }
        throw new IllegalStateException("scenario copy: no ssh login into h2 within 20 s: "
            + Files.readString(dir.resolve("sshd.log")).strip());
    }

    private static void run(List<String> cmd) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (p.waitFor() != 0) {
            throw new IOException(cmd.get(0) + " failed: " + out.strip());
        }
    }

    static void deleteTree(Path dir) {
        try (var walk = Files.walk(dir)) {
            walk.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException | RuntimeException ignored) {
            // best effort: a temporary directory
        }
    }

    @Override
    public void close() {
        sshd.destroy();
        try {
            if (!sshd.waitFor(5, TimeUnit.SECONDS)) {
                sshd.destroyForcibly();
            }
        } catch (InterruptedException e) {
            sshd.destroyForcibly();
            Thread.currentThread().interrupt();
        }
        deleteTree(dir);
    }
}
