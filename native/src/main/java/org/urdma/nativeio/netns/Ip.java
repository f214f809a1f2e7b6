package org.urdma.nativeio.netns;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/** Runs iproute2's {@code ip} (and other commands) through ProcessBuilder; failures carry stderr. */
public final class Ip {
    private static final long TIMEOUT_S = 30;

    private Ip() {
    }

    /** Runs {@code ip ARGS...} and returns its stdout; throws {@link IpCommandException} on failure. */
    public static String ip(String... args) {
        List<String> cmd = new ArrayList<>(args.length + 1);
        cmd.add("ip");
        cmd.addAll(Arrays.asList(args));
        return run(cmd);
    }

    /** Runs {@code ip ARGS...} inside namespace {@code ns} ({@code ip -n NS ...}). */
    public static String ipIn(String ns, String... args) {
        List<String> cmd = new ArrayList<>(args.length + 3);
        cmd.add("ip");
        cmd.add("-n");
        cmd.add(ns);
        cmd.addAll(Arrays.asList(args));
        return run(cmd);
    }

    /** Runs a command, waits (30 s at most) and returns stdout; non-zero exit throws with stderr. */
    public static String run(List<String> command) {
        Process p;
        try {
            p = new ProcessBuilder(command).redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null"))).start();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start '" + String.join(" ", command) + "': " + e.getMessage(), e);
        }
        // a short-lived thread, not a pool: a thread created here inherits the caller's network namespace
        CompletableFuture<String> err = new CompletableFuture<>();
        Thread.ofPlatform().daemon().name("ip-stderr").start(() -> err.complete(drain(p.getErrorStream())));
        String out = drain(p.getInputStream());
        try {
            if (!p.waitFor(TIMEOUT_S, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                throw new IpCommandException(command, -1, "timed out after " + TIMEOUT_S + " s");
            }
        } catch (InterruptedException e) {
            p.destroyForcibly();
            Thread.currentThread().interrupt();
            throw new IpCommandException(command, -1, "interrupted");
        }
        String stderr = err.join();
        if (p.exitValue() != 0) {
            throw new IpCommandException(command, p.exitValue(), stderr);
        }
        return out;
    }

    private static String drain(InputStream in) {
        try (in) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            return "";
        }
    }
}
