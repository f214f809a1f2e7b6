package org.urdma.switchemu.rt;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.invoke.MethodHandle;
import java.util.concurrent.locks.LockSupport;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

/**
 * How the driver thread sleeps when it has nothing to do: {@code ppoll(2)} on every port's descriptor
 * with a nanosecond timeout, so a frame arriving wakes it at once and a deadline (a delayed frame's
 * release, the core's next poll) wakes it shortly before. A sleeping thread, unlike a spinning one,
 * leaves the CPU to the hosts' threads on a small machine and is woken promptly by the scheduler.
 * Ports without a descriptor (in-memory) make it park for the timeout instead.
 *
 * <p>Also reads CLOCK_REALTIME (the clock of the kernel's receive timestamps) and lowers the calling
 * thread's timer slack (50 us by default) so timed wake-ups are not deferred. No allocation after
 * construction; one instance per driver thread.
 */
@SuppressWarnings("restricted") // FFM downcalls to libc
public final class PortWaiter {
    private static final Linker LINKER = Linker.nativeLinker();
    private static final SymbolLookup LIBC = LINKER.defaultLookup();
    private static final MethodHandle PPOLL = handle("ppoll", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_LONG, ADDRESS, ADDRESS));
    private static final MethodHandle CLOCK_GETTIME = handle("clock_gettime", FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS));
    private static final MethodHandle PRCTL = LIBC.find("prctl")
        .map(a -> LINKER.downcallHandle(a, FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_LONG), Linker.Option.firstVariadicArg(1)))
        .orElse(null);
    // optional: without them (an old libc) the driver runs at the default priority and slack
    private static final MethodHandle GETTID = optional("gettid", FunctionDescriptor.of(JAVA_INT));
    private static final MethodHandle SETPRIORITY = optional("setpriority", FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT, JAVA_INT));
    private static final short POLLIN = 1;
    private static final int CLOCK_REALTIME = 0;
    private static final int PR_SET_TIMERSLACK = 29;

    private final MemorySegment fds;
    private final int count;
    private final MemorySegment timeout;
    private final MemorySegment clock;
    private long readable;
    private long timedOut;

    /** Waits on these descriptors ({@code -1} entries are skipped). */
    public PortWaiter(int[] readableFds) {
        Arena arena = Arena.ofAuto();
        int n = 0;
        for (int fd : readableFds) {
            if (fd >= 0) {
                n++;
            }
        }
        this.count = n;
        this.fds = arena.allocate(8L * Math.max(1, n), 8);
        int i = 0;
        for (int fd : readableFds) {
            if (fd >= 0) {
                fds.set(JAVA_INT, 8L * i, fd);
                fds.set(JAVA_SHORT, 8L * i + 4, POLLIN);
                i++;
            }
        }
        this.timeout = arena.allocate(16, 8);
        this.clock = arena.allocate(16, 8);
    }

    private static MethodHandle optional(String name, FunctionDescriptor fd) {
        return LIBC.find(name).map(a -> LINKER.downcallHandle(a, fd)).orElse(null);
    }

    private static MethodHandle handle(String name, FunctionDescriptor fd) {
        return LINKER.downcallHandle(LIBC.find(name).orElseThrow(() -> new UnsatisfiedLinkError("libc: " + name)), fd);
    }

    /** Sets the calling thread's timer slack (ns); false if the kernel refused. Call from the driver thread. */
    public static boolean timerSlack(long ns) {
        if (PRCTL == null) {
            return false;
        }
        try {
            return (int) PRCTL.invokeExact(PR_SET_TIMERSLACK, ns) == 0;
        } catch (Throwable t) {
            return false;
        }
    }

    /**
     * Sets the calling thread's nice value (Linux: per thread); false if refused (e.g. not root and
     * {@code nice < 0}). Call from the driver thread.
     */
    public static boolean niceness(int nice) {
        if (GETTID == null || SETPRIORITY == null) {
            return false;
        }
        try {
            int tid = (int) GETTID.invokeExact();
            return (int) SETPRIORITY.invokeExact(0, tid, nice) == 0;
        } catch (Throwable t) {
            return false;
        }
    }

    /** True if there are descriptors to wait on (otherwise {@link #await} parks). */
    public boolean hasDescriptors() {
        return count > 0;
    }

    /** Sleeps until a port is readable or {@code timeoutNs} passed (whichever first); returns at once if {@code <= 0}. */
    public void await(long timeoutNs) {
        if (timeoutNs <= 0) {
            return;
        }
        if (count == 0) {
            LockSupport.parkNanos(timeoutNs);
            return;
        }
        timeout.set(JAVA_LONG, 0, timeoutNs / 1_000_000_000L);
        timeout.set(JAVA_LONG, 8, timeoutNs % 1_000_000_000L);
        for (int i = 0; i < count; i++) {
            fds.set(JAVA_SHORT, 8L * i + 6, (short) 0);
        }
        try {
            int rc = (int) PPOLL.invokeExact(fds, (long) count, timeout, MemorySegment.NULL);
            if (rc > 0) {
                readable++;
            } else if (rc == 0) {
                timedOut++;
            } else {
                // EINTR or a closed descriptor while stopping: the driver loop checks again either way
                Thread.onSpinWait();
            }
        } catch (Throwable t) {
            throw new IllegalStateException("ppoll failed", t);
        }
    }

    /** Sleeps that ended because a port became readable. */
    public long readableWakeups() {
        return readable;
    }

    /** Sleeps that ended at their timeout. */
    public long timedOutWakeups() {
        return timedOut;
    }

    /** CLOCK_REALTIME now, ns since the epoch (the clock of AF_PACKET receive timestamps). */
    public long realtimeNanos() {
        try {
            int rc = (int) CLOCK_GETTIME.invokeExact(CLOCK_REALTIME, clock);
            if (rc != 0) {
                throw new IllegalStateException("clock_gettime(CLOCK_REALTIME) failed");
            }
        } catch (RuntimeException e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException("clock_gettime failed", t);
        }
        return clock.get(JAVA_LONG, 0) * 1_000_000_000L + clock.get(JAVA_LONG, 8);
    }
}
