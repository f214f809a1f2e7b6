package org.urdma.interop;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.VarHandle;
import java.net.InetSocketAddress;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;

/**
 * Opens TCP sockets inside a named network namespace without another process: a fresh platform
 * thread calls setns(2) on /var/run/netns/NAME (which moves only that thread), creates the socket —
 * a socket belongs to the namespace it was created in — and ends. The socket is then used from any
 * thread of the JVM.
 */
final class NetnsSockets {

    private static final int O_RDONLY_CLOEXEC = 0x80000;
    private static final int CLONE_NEWNET = 0x40000000;
    private static final Linker LINKER = Linker.nativeLinker();
    private static final MethodHandle OPEN;
    private static final MethodHandle SETNS;
    private static final MethodHandle CLOSE;
    private static final VarHandle ERRNO;
    private static final long ERRNO_SIZE;

    static {
        var lookup = LINKER.defaultLookup();
        var errno = Linker.Option.captureCallState("errno");
        var layout = Linker.Option.captureStateLayout();
        ERRNO = layout.varHandle(java.lang.foreign.MemoryLayout.PathElement.groupElement("errno"));
        ERRNO_SIZE = layout.byteSize();
        OPEN = LINKER.downcallHandle(lookup.find("open").orElseThrow(),
                FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.ADDRESS, ValueLayout.JAVA_INT), errno);
        SETNS = LINKER.downcallHandle(lookup.find("setns").orElseThrow(),
                FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT, ValueLayout.JAVA_INT), errno);
        CLOSE = LINKER.downcallHandle(lookup.find("close").orElseThrow(),
                FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT));
    }

    private NetnsSockets() {}

    /** A TCP connection to {@code target}, made from inside namespace {@code ns}. */
    static SocketChannel connect(String ns, InetSocketAddress target) throws IOException {
        return inNamespace(ns, () -> SocketChannel.open(target));
    }

    /** A listening TCP socket bound inside namespace {@code ns}. */
    static ServerSocketChannel listen(String ns, InetSocketAddress bind) throws IOException {
        return inNamespace(ns, () -> {
            ServerSocketChannel s = ServerSocketChannel.open();
            s.bind(bind, 1);
            return s;
        });
    }

    private static <T> T inNamespace(String ns, Callable<T> action) throws IOException {
        CompletableFuture<T> result = new CompletableFuture<>();
        Thread t = Thread.ofPlatform().name("setns-" + ns).start(() -> {
            try {
                enter(ns);
                result.complete(action.call());
            } catch (Throwable e) {
                result.completeExceptionally(e);
            }
        });
        try {
            t.join();
            return result.get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while opening a socket in " + ns, e);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof IOException io) {
                throw io;
            }
            throw new IOException("opening a socket in " + ns + " failed", e.getCause());
        }
    }

    /** Moves the calling thread into the namespace. */
    private static void enter(String ns) throws Throwable {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment state = arena.allocate(ERRNO_SIZE);
            String path = "/var/run/netns/" + ns;
            int fd = (int) OPEN.invokeExact(state, arena.allocateFrom(path), O_RDONLY_CLOEXEC);
            if (fd < 0) {
                throw new IOException("open " + path + " failed, errno " + (int) ERRNO.get(state, 0L));
            }
            try {
                int rc = (int) SETNS.invokeExact(state, fd, CLONE_NEWNET);
                if (rc != 0) {
                    throw new IOException("setns(" + path + ") failed, errno " + (int) ERRNO.get(state, 0L));
                }
            } finally {
                int ignored = (int) CLOSE.invokeExact(fd);
            }
        }
    }
}
