package org.urdma.interop;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import org.urdma.cli.UrdmaCli;

/**
 * Runs a {@code urdma} CLI command inside a test's network namespace on a thread of this JVM (its TAP and sockets
 * live there) with its output captured, so the interop tests can start urdma as the stock tool's peer and assert on
 * what it printed. Shared by the interop tests that drive {@code urdma perf} and {@code urdma pingpong}.
 */
final class UrdmaInNamespace {
    /** One urdma run: its exit code (-1 when it threw) and everything it printed. */
    record Side(int exit, String out) {
    }

    private UrdmaInNamespace() {
    }

    /**
     * Starts {@code urdma args...} in namespace {@code ns}. The command prints to System.out (and, with
     * {@code alsoStderr}, System.err) like the stock tool: those are captured for this run and still reach the
     * surefire log; runs are serialised because System.out/err are global.
     */
    static CompletableFuture<Side> run(String ns, boolean alsoStderr, String... args) {
        return start(ns, alsoStderr, args).done();
    }

    /** A urdma run under way: what it has printed so far, and its end. */
    record Running(CompletableFuture<Side> done, ByteArrayOutputStream printed) {
        /**
         * Waits until the run has printed {@code text} (a server saying it listens, say), instead of a fixed sleep a
         * busy machine may outlast; fails when the run ended first or {@code within} passed.
         */
        void awaitOutput(String text, Duration within) throws Exception {
            long deadline = System.nanoTime() + within.toNanos();
            while (!printed.toString(StandardCharsets.UTF_8).contains(text)) {
                if (done.isDone()) throw new AssertionError("urdma ended before printing '" + text + "':\n" + done.get().out());
                if (System.nanoTime() > deadline) throw new AssertionError("urdma did not print '" + text + "' within " + within + ":\n" + printed);
                Thread.sleep(50);
            }
        }
    }

    /** As {@link #run} with the output readable while it runs. */
    static Running start(String ns, boolean alsoStderr, String... args) {
        ByteArrayOutputStream buf = new ByteArrayOutputStream();
        return new Running(CompletableFuture.supplyAsync(() -> {
            StringWriter err = new StringWriter();
            try {
                return org.urdma.nativeio.netns.Netns.call(ns, () -> {
                    PrintStream stdout = System.out, stderr = System.err;
                    var cl = UrdmaCli.commandLine();
                    cl.setOut(new PrintWriter(buf, true, StandardCharsets.UTF_8));
                    cl.setErr(new PrintWriter(err, true));
                    PrintStream ps = new PrintStream(buf, true, StandardCharsets.UTF_8);
                    int rc;
                    synchronized (UrdmaInNamespace.class) {
                        System.setOut(new Tee(stdout, ps));
                        if (alsoStderr) System.setErr(new Tee(stderr, ps));
                        try {
                            rc = cl.execute(args);
                        } finally {
                            System.setOut(stdout);
                            if (alsoStderr) System.setErr(stderr);
                        }
                    }
                    return new Side(rc, buf.toString(StandardCharsets.UTF_8) + err);
                });
            } catch (Exception e) {
                return new Side(-1, buf.toString(StandardCharsets.UTF_8) + err + "\n" + e);
            }
        }), buf);
    }

    /**
     * Waits until something listens on TCP {@code port} in namespace {@code ns}; fails early when {@code server}
     * (null: not checked) ended first. {@code what} names the command in the failure message.
     */
    static void awaitListening(String ns, int port, Duration within, CompletableFuture<Side> server, String what) throws Exception {
        long deadline = System.nanoTime() + within.toNanos();
        while (System.nanoTime() < deadline) {
            if (server != null && server.isDone()) throw new AssertionError("urdma " + what + " ended before listening:\n" + server.get().out());
            String ss = Interop.run(Duration.ofSeconds(10), "ip", "netns", "exec", ns, "ss", "-ltnH");
            if (ss.contains(":" + port)) return;
            Thread.sleep(100);
        }
        throw new AssertionError("urdma " + what + " did not listen on " + port + " within " + within);
    }

    /** Both streams get every byte (the run is visible in the surefire log and in the assertion). */
    private static final class Tee extends PrintStream {
        private final PrintStream second;

        Tee(PrintStream first, PrintStream second) {
            super(first, true, StandardCharsets.UTF_8);
            this.second = second;
        }

        @Override
        public void write(byte[] b, int off, int len) {
            super.write(b, off, len);
            second.write(b, off, len);
        }

        @Override
        public void write(int b) {
            super.write(b);
            second.write(b);
        }
    }
}
