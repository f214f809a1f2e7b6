package org.urdma.tools.perf;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.urdma.nativeio.netns.Netns;

/**
 * One {@code urdma perf …} JVM started inside a network namespace with {@code ip netns exec}, as a user runs it:
 * {@code org.urdma.cli.UrdmaCli} on this JVM's class path with the JVM flags the launcher and surefire pass.
 * Its stdout and stderr are collected together. {@link #close()} kills it; a shutdown hook kills whatever is left if
 * the test JVM itself dies, so no JVM outlives the test.
 */
final class PerfProcess implements AutoCloseable {
    private static final Set<Process> LIVE = ConcurrentHashMap.newKeySet();

    static {
        Runtime.getRuntime().addShutdownHook(new Thread(() -> LIVE.forEach(Process::destroyForcibly), "perf-process-reaper"));
    }

    final String name;
    private final Process process;
    private final StringBuilder output = new StringBuilder();
    private final Thread pump;

    private PerfProcess(String name, Process process) {
        this.name = name;
        this.process = process;
        LIVE.add(process);
        this.pump = Thread.ofPlatform().daemon().name("perf-output-" + name).start(() -> {
            try (BufferedReader r = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
                String line;
                while ((line = r.readLine()) != null) {
                    synchronized (output) {
                        output.append(line).append('\n');
                        output.notifyAll();
                    }
                }
            } catch (Exception ignored) {
                // the process is gone
            }
        });
    }

    /** The command line: java, the launcher's flags, this class path, the CLI, then {@code args}. */
    static List<String> command(String... args) {
        List<String> cmd = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString()));
        // the flags ./urdma and surefire pass (urdma.jvm.flags: native access, opens, exports)
        for (String a : ManagementFactory.getRuntimeMXBean().getInputArguments()) if (a.startsWith("--")) cmd.add(a);
        // test-harness choices only, to start faster on a busy machine: small heap, one GC thread, no C2 (runs are tiny)
        cmd.addAll(List.of("-Xmx256m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1"));
        cmd.addAll(List.of("-cp", System.getProperty("java.class.path"), "org.urdma.cli.UrdmaCli"));
        cmd.addAll(List.of(args));
        return cmd;
    }

    /** Starts {@code urdma ARGS} inside namespace {@code ns}. */
    static PerfProcess start(String name, String ns, String... args) throws Exception {
        Process p = Netns.processBuilder(ns, command(args).toArray(String[]::new)).redirectErrorStream(true).start();
        return new PerfProcess(name, p);
    }

    String output() {
        synchronized (output) {
            return output.toString();
        }
    }

    /** Waits until the output contains {@code text}; false if the process ended or the time passed first. */
    boolean awaitOutput(String text, long millis) throws InterruptedException {
        long end = System.nanoTime() + millis * 1_000_000;
        synchronized (output) {
            while (output.indexOf(text) < 0) {
                long left = (end - System.nanoTime()) / 1_000_000;
                if (left <= 0 || (!process.isAlive() && !pump.isAlive())) return false;
                output.wait(Math.min(left, 50));
            }
            return true;
        }
    }

    boolean isAlive() {
        return process.isAlive();
    }

    /** The exit code once it ended, or throws naming the process and its output so far. */
    int exit(long millis) throws InterruptedException {
        if (!process.waitFor(millis, TimeUnit.MILLISECONDS)) {
            throw new AssertionError(name + " still running after " + millis + " ms; output so far:\n" + output());
        }
        pump.join(5_000); // the rest of its output
        return process.exitValue();
    }

    /** SIGKILL, as a crash or {@code kill -9} would end it ({@code ip netns exec} exec'd the JVM: same pid). */
    void kill() throws InterruptedException {
        process.destroyForcibly();
        process.waitFor(10, TimeUnit.SECONDS);
    }

    @Override
    public void close() throws InterruptedException {
        try {
            kill();
        } finally {
            LIVE.remove(process);
        }
    }

    @Override
    public String toString() {
        return name + " output:\n" + output();
    }
}
