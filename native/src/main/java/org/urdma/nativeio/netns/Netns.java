package org.urdma.nativeio.netns;

import org.urdma.nativeio.Libc;
import org.urdma.nativeio.NativeException;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;

import static org.urdma.nativeio.LinuxConstants.CLONE_NEWNET;
import static org.urdma.nativeio.LinuxConstants.O_CLOEXEC;
import static org.urdma.nativeio.LinuxConstants.O_RDONLY;

/**
 * Named network namespaces ({@code ip netns}, files under /run/netns) and running code in them.
 *
 * <p>{@link #run}/{@link #call}/{@link #enter} switch only the CURRENT platform thread with setns(2)
 * and switch it back afterwards; sockets and TAP devices created meanwhile stay in that namespace
 * for their whole life. Threads started while inside inherit the namespace for their whole life
 * (handy for a receiver thread; beware of thread pools that lazily create workers there). Do not use
 * them from virtual threads (a virtual thread may move between carrier threads).
 */
public final class Netns {
    private static final Path RUN_NETNS = Path.of("/run/netns");

    private Netns() {
    }

    public static void create(String name) {
        validate(name);
        Ip.ip("netns", "add", name);
    }

    /** Deletes the namespace (links inside it go too); no error if it does not exist. */
    public static void delete(String name) {
        validate(name);
        if (exists(name)) {
            Ip.ip("netns", "delete", name);
        }
    }

    public static boolean exists(String name) {
        return Files.exists(RUN_NETNS.resolve(name));
    }

    /** Names of all named namespaces. */
    public static List<String> list() {
        if (!Files.isDirectory(RUN_NETNS)) {
            return List.of();
        }
        try (var s = Files.list(RUN_NETNS)) {
            return s.map(p -> p.getFileName().toString()).sorted().toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Runs {@code command} inside {@code ns} to completion ({@code ip netns exec}); returns stdout. */
    public static String exec(String ns, String... command) {
        return Ip.run(execCommand(ns, command));
    }

    /** A ProcessBuilder for {@code command} inside {@code ns} (e.g. another JVM); caller starts it. */
    public static ProcessBuilder processBuilder(String ns, String... command) {
        return new ProcessBuilder(execCommand(ns, command));
    }

    private static List<String> execCommand(String ns, String... command) {
        validate(ns);
        List<String> cmd = new ArrayList<>(List.of("ip", "netns", "exec", ns));
        cmd.addAll(List.of(command));
        return cmd;
    }

    /** Runs {@code action} on this thread inside {@code ns}, then returns the thread to its namespace. */
    public static void run(String ns, Runnable action) {
        Scope scope = enter(ns);
        try {
            action.run();
        } finally {
            scope.close();
        }
    }

    /** Calls {@code action} on this thread inside {@code ns}, then returns the thread to its namespace. */
    public static <T> T call(String ns, Callable<T> action) throws Exception {
        Scope scope = enter(ns);
        try {
            return action.call();
        } finally {
            scope.close();
        }
    }

    /**
     * Moves the current thread into {@code ns} until the returned scope is closed (on the same thread).
     *
     * @throws NativeException if the namespace does not exist or setns is not permitted
     */
    public static Scope enter(String ns) {
        validate(ns);
        if (Thread.currentThread().isVirtual()) {
            throw new IllegalStateException("cannot enter namespace '" + ns
                    + "' from a virtual thread (setns moves the carrier thread): use a platform thread");
        }
        int self = Libc.open("/proc/thread-self/ns/net", O_RDONLY | O_CLOEXEC);
        Libc.check(self, "open", "/proc/thread-self/ns/net");
        int target = Libc.open(RUN_NETNS.resolve(ns).toString(), O_RDONLY | O_CLOEXEC);
        if (target < 0) {
            int errno = Libc.errno();
            Libc.close(self);
            throw new NativeException("open", errno, "network namespace '" + ns + "' not found (/run/netns/" + ns
                    + ": " + Libc.strerror(errno) + ")");
        }
        try {
            if (Libc.setns(target, CLONE_NEWNET) < 0) {
                int errno = Libc.errno();
                Libc.close(self);
                throw NativeException.of("setns", errno, "namespace '" + ns + "'"
                        + (errno == 1 ? " - needs CAP_SYS_ADMIN (run as root)" : ""));
            }
        } finally {
            Libc.close(target);
        }
        return new Scope(ns, self, Thread.currentThread());
    }

    static void validate(String name) {
        if (name == null || name.isEmpty() || name.contains("/") || name.startsWith(".")) {
            throw new IllegalArgumentException("namespace name must be a non-empty file name, got '" + name + "'");
        }
    }

    /** The current thread is inside a namespace until {@link #close()} switches it back. */
    public static final class Scope implements AutoCloseable {
        private final String name;
        private final Thread thread;
        private int originalFd;

        private Scope(String name, int originalFd, Thread thread) {
            this.name = name;
            this.originalFd = originalFd;
            this.thread = thread;
        }

        public String name() {
            return name;
        }

        @Override
        public void close() {
            if (originalFd < 0) {
                return;
            }
            if (Thread.currentThread() != thread) {
                throw new IllegalStateException("namespace scope '" + name + "' must be closed on the thread that entered it");
            }
            try {
                if (Libc.setns(originalFd, CLONE_NEWNET) < 0) {
                    throw new IllegalStateException("cannot return thread " + thread.getName() + " from namespace '" + name
                            + "': " + Libc.strerror(Libc.errno()));
                }
            } finally {
                Libc.close(originalFd);
                originalFd = -1;
            }
        }
    }
}
