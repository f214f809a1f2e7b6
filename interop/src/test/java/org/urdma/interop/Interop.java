package org.urdma.interop;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;

/** Preconditions and small process helpers shared by the interop harness. */
final class Interop {

    private Interop() {}

    /** Skips unless we are root; under CI=true not being root is a failure, not a skip. */
    static void requireRootOrCi() {
        boolean root = isRoot();
        if (!root && "true".equals(System.getenv("CI"))) {
            throw new AssertionError("interop tests need root (namespaces, TAPs, qemu) but CI=true runs as uid "
                    + uid());
        }
        Assumptions.assumeTrue(root, "interop tests need root for network namespaces, TAPs and qemu; skipping");
    }

    static boolean isRoot() {
        return "0".equals(uid());
    }

    private static String uid() {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
                if (line.startsWith("Uid:")) {
                    return line.split("\\s+")[1];
                }
            }
        } catch (IOException e) {
            return "?";
        }
        return "?";
    }

    /** The repository root: the nearest parent of the working directory holding interop/build-initramfs.sh. */
    static Path repoRoot() {
        Path p = Path.of("").toAbsolutePath();
        while (p != null) {
            if (Files.isRegularFile(p.resolve("interop/build-initramfs.sh"))) {
                return p;
            }
            p = p.getParent();
        }
        throw new IllegalStateException("interop/build-initramfs.sh not found above " + Path.of("").toAbsolutePath());
    }

    /** Where tests leave logs and captures: interop/target/interop/. */
    static Path outputDir(String name) throws IOException {
        Path d = repoRoot().resolve("interop/target/interop").resolve(name);
        Files.createDirectories(d);
        return d;
    }

    /** Runs a command to completion; throws with its output when it fails or times out. */
    static String run(Duration timeout, String... cmd) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        byte[][] out = new byte[1][];
        Thread reader = Thread.ofVirtual().start(() -> {
            try {
                out[0] = p.getInputStream().readAllBytes();
            } catch (IOException e) {
                out[0] = new byte[0];
            }
        });
        if (!p.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
            p.destroyForcibly();
            throw new IOException(String.join(" ", cmd) + ": timed out after " + timeout);
        }
        reader.join();
        String text = new String(out[0], StandardCharsets.UTF_8);
        if (p.exitValue() != 0) {
            throw new IOException(String.join(" ", cmd) + ": exit " + p.exitValue() + "\n" + text);
        }
        return text;
    }

    /** Like {@link #run} but never throws on a non-zero exit (for cleanup). */
    static void runQuietly(String... cmd) {
        try {
            Process p = new ProcessBuilder(cmd).redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
            if (!p.waitFor(30, TimeUnit.SECONDS)) {
                p.destroyForcibly();
            }
        } catch (IOException e) {
            // best effort
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Kills a process and everything it started (qemu runs under "ip netns exec"). */
    static void kill(Process p, Duration grace) {
        if (p == null) {
            return;
        }
        List<ProcessHandle> all = new ArrayList<>(p.descendants().toList());
        all.add(p.toHandle());
        for (ProcessHandle h : all) {
            h.destroy();
        }
        long deadline = System.nanoTime() + grace.toNanos();
        for (ProcessHandle h : all) {
            long left = deadline - System.nanoTime();
            try {
                h.onExit().get(Math.max(1, left), TimeUnit.NANOSECONDS);
            } catch (Exception e) {
                h.destroyForcibly();
            }
        }
    }
}
