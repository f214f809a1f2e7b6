package org.urdma.nativeio;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.VarHandle;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static org.urdma.nativeio.LinuxConstants.MSG_DONTWAIT;

/**
 * Thin libc bindings through FFM. Every downcall handle is created once. Calls return the raw libc
 * result (-1 on failure); errno is captured per call into a per-thread segment and read with
 * {@link #errno()} right after a failed call, so the data path neither allocates nor throws.
 * {@link #check} turns a failed result into a {@link NativeException}.
 */
@SuppressWarnings("restricted") // FFM downcalls and reinterpret: the point of this class
public final class Libc {
    private static final Linker LINKER = Linker.nativeLinker();
    private static final SymbolLookup LOOKUP = LINKER.defaultLookup();
    private static final Linker.Option CAPTURE_ERRNO = Linker.Option.captureCallState("errno");
    private static final MemoryLayout CAPTURE_LAYOUT = Linker.Option.captureStateLayout();
    private static final VarHandle ERRNO = CAPTURE_LAYOUT.varHandle(MemoryLayout.PathElement.groupElement("errno"));

    /** errno capture buffer, one per thread (allocated once per thread, freed with the thread). */
    private static final ThreadLocal<MemorySegment> CAPTURE =
            ThreadLocal.withInitial(() -> Arena.ofAuto().allocate(CAPTURE_LAYOUT));

    private static final MethodHandle SOCKET = errnoHandle("socket", FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT, JAVA_INT));
    private static final MethodHandle BIND = errnoHandle("bind", FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS, JAVA_INT));
    private static final MethodHandle CLOSE = errnoHandle("close", FunctionDescriptor.of(JAVA_INT, JAVA_INT));
    private static final MethodHandle SETSOCKOPT = errnoHandle("setsockopt",
            FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT, JAVA_INT, ADDRESS, JAVA_INT));
    private static final MethodHandle GETSOCKOPT = errnoHandle("getsockopt",
            FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT, JAVA_INT, ADDRESS, ADDRESS));
    // int ioctl(int fd, unsigned long request, ...): the pointer argument is variadic
    private static final MethodHandle IOCTL = errnoHandle("ioctl",
            FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_LONG, ADDRESS), Linker.Option.firstVariadicArg(2));
    private static final MethodHandle MMAP = errnoHandle("mmap",
            FunctionDescriptor.of(ADDRESS, ADDRESS, JAVA_LONG, JAVA_INT, JAVA_INT, JAVA_INT, JAVA_LONG));
    private static final MethodHandle MUNMAP = errnoHandle("munmap", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_LONG));
    private static final MethodHandle POLL = errnoHandle("poll", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_LONG, JAVA_INT));
    private static final MethodHandle PPOLL = errnoHandle("ppoll", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_LONG, ADDRESS, ADDRESS));
    // int prctl(int option, ...): the arguments after the option are variadic
    private static final MethodHandle PRCTL = LINKER.downcallHandle(find("prctl"),
            FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_LONG), Linker.Option.firstVariadicArg(1));
    private static final int PR_SET_TIMERSLACK = 29;
    private static final MethodHandle SEND = errnoHandle("send",
            FunctionDescriptor.of(JAVA_LONG, JAVA_INT, ADDRESS, JAVA_LONG, JAVA_INT));
    private static final MethodHandle SENDTO = errnoHandle("sendto",
            FunctionDescriptor.of(JAVA_LONG, JAVA_INT, ADDRESS, JAVA_LONG, JAVA_INT, ADDRESS, JAVA_INT));
    // the vector as a raw address: a segment of a shared arena costs the data path an allocation per call (the
    // downcall keeps its session alive) unless C2 inlines the whole call, which it does not always do
    private static final MethodHandle SENDMMSG = errnoHandle("sendmmsg",
            FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_LONG, JAVA_INT, JAVA_INT));
    private static final MethodHandle RECV = errnoHandle("recv",
            FunctionDescriptor.of(JAVA_LONG, JAVA_INT, ADDRESS, JAVA_LONG, JAVA_INT));
    private static final MethodHandle RECVFROM = errnoHandle("recvfrom",
            FunctionDescriptor.of(JAVA_LONG, JAVA_INT, ADDRESS, JAVA_LONG, JAVA_INT, ADDRESS, ADDRESS));
    private static final MethodHandle READ = errnoHandle("read", FunctionDescriptor.of(JAVA_LONG, JAVA_INT, ADDRESS, JAVA_LONG));
    private static final MethodHandle WRITE = errnoHandle("write", FunctionDescriptor.of(JAVA_LONG, JAVA_INT, ADDRESS, JAVA_LONG));
    // Data-path read/write of non-blocking fds: critical downcalls on raw addresses, without errno capture. The
    // JDK's capture slices its state segment per call, an allocation only C2's escape analysis removes, and only
    // when it inlines the whole call (it did not always: LinkAllocationTest on TAP). No thread-state change happens
    // in a critical call, so errno is still the syscall's when __errno_location is read right after a failure.
    private static final MethodHandle READ_AT = LINKER.downcallHandle(find("read"),
            FunctionDescriptor.of(JAVA_LONG, JAVA_INT, JAVA_LONG, JAVA_LONG), Linker.Option.critical(false));
    private static final MethodHandle WRITE_AT = LINKER.downcallHandle(find("write"),
            FunctionDescriptor.of(JAVA_LONG, JAVA_INT, JAVA_LONG, JAVA_LONG), Linker.Option.critical(false));
    // The same for the other calls the data path makes without waiting: the ring kick and sendmmsg with MSG_DONTWAIT,
    // recv with MSG_DONTWAIT, and poll with a zero timeout. Calls that may block keep errno capture: a critical call
    // holds off safepoints while it runs.
    private static final MethodHandle SEND_AT = LINKER.downcallHandle(find("send"),
            FunctionDescriptor.of(JAVA_LONG, JAVA_INT, JAVA_LONG, JAVA_LONG, JAVA_INT), Linker.Option.critical(false));
    private static final MethodHandle SENDMMSG_AT = LINKER.downcallHandle(find("sendmmsg"),
            FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_LONG, JAVA_INT, JAVA_INT), Linker.Option.critical(false));
    private static final MethodHandle RECV_AT = LINKER.downcallHandle(find("recv"),
            FunctionDescriptor.of(JAVA_LONG, JAVA_INT, JAVA_LONG, JAVA_LONG, JAVA_INT), Linker.Option.critical(false));
    private static final MethodHandle POLL_AT = LINKER.downcallHandle(find("poll"),
            FunctionDescriptor.of(JAVA_INT, JAVA_LONG, JAVA_LONG, JAVA_INT), Linker.Option.critical(false));
    private static final MethodHandle ERRNO_LOCATION = LINKER.downcallHandle(find("__errno_location"),
            FunctionDescriptor.of(JAVA_LONG), Linker.Option.critical(false));
    private static final MemorySegment EVERYTHING = MemorySegment.NULL.reinterpret(Long.MAX_VALUE);
    // int open(const char *path, int flags, ...): mode is variadic
    private static final MethodHandle OPEN = errnoHandle("open",
            FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT, JAVA_INT), Linker.Option.firstVariadicArg(2));
    private static final MethodHandle LSEEK = errnoHandle("lseek", FunctionDescriptor.of(JAVA_LONG, JAVA_INT, JAVA_LONG, JAVA_INT));
    private static final MethodHandle IF_NAMETOINDEX = errnoHandle("if_nametoindex", FunctionDescriptor.of(JAVA_INT, ADDRESS));
    private static final MethodHandle SETNS = errnoHandle("setns", FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT));
    private static final MethodHandle STRERROR = LINKER.downcallHandle(find("strerror"), FunctionDescriptor.of(ADDRESS, JAVA_INT));
    private static final MethodHandle GETEUID = LINKER.downcallHandle(find("geteuid"), FunctionDescriptor.of(JAVA_INT));
    private static final MethodHandle GETPID = LINKER.downcallHandle(find("getpid"), FunctionDescriptor.of(JAVA_INT));

    private Libc() {
    }

    private static MemorySegment find(String name) {
        return LOOKUP.find(name).orElseThrow(() -> new UnsatisfiedLinkError("libc symbol not found: " + name));
    }

    private static MethodHandle errnoHandle(String name, FunctionDescriptor fd, Linker.Option... extra) {
        Linker.Option[] opts = new Linker.Option[extra.length + 1];
        opts[0] = CAPTURE_ERRNO;
        System.arraycopy(extra, 0, opts, 1, extra.length);
        return LINKER.downcallHandle(find(name), fd, opts);
    }

    private static RuntimeException rethrow(Throwable t) {
        if (t instanceof RuntimeException r) {
            return r;
        }
        if (t instanceof Error e) {
            throw e;
        }
        return new IllegalStateException(t);
    }

    /** errno of the last failed call made through this class on the current thread. */
    public static int errno() {
        return (int) ERRNO.get(CAPTURE.get(), 0L);
    }

    /** Throws a {@link NativeException} naming {@code function} and {@code context} if {@code rc < 0}. */
    public static long check(long rc, String function, String context) {
        if (rc < 0) {
            throw NativeException.of(function, errno(), context);
        }
        return rc;
    }

    public static int check(int rc, String function, String context) {
        if (rc < 0) {
            throw NativeException.of(function, errno(), context);
        }
        return rc;
    }

    public static String strerror(int errno) {
        try {
            MemorySegment p = (MemorySegment) STRERROR.invokeExact(errno);
            return p.equals(MemorySegment.NULL) ? "errno " + errno : p.reinterpret(Integer.MAX_VALUE).getString(0);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    public static int socket(int domain, int type, int protocol) {
        try {
            return (int) SOCKET.invokeExact(CAPTURE.get(), domain, type, protocol);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    public static int bind(int fd, MemorySegment addr, int addrLen) {
        try {
            return (int) BIND.invokeExact(CAPTURE.get(), fd, addr, addrLen);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    public static int close(int fd) {
        try {
            return (int) CLOSE.invokeExact(CAPTURE.get(), fd);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    public static int setsockopt(int fd, int level, int name, MemorySegment value, int len) {
        try {
            return (int) SETSOCKOPT.invokeExact(CAPTURE.get(), fd, level, name, value, len);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /** {@code lenInOut} holds a socklen_t (int): the buffer size in, the value size out. */
    public static int getsockopt(int fd, int level, int name, MemorySegment value, MemorySegment lenInOut) {
        try {
            return (int) GETSOCKOPT.invokeExact(CAPTURE.get(), fd, level, name, value, lenInOut);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    public static int ioctl(int fd, long request, MemorySegment arg) {
        try {
            return (int) IOCTL.invokeExact(CAPTURE.get(), fd, request, arg);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /** Returns the mapping address, or {@link #MAP_FAILED} (address -1) on failure. */
    public static MemorySegment mmap(MemorySegment addr, long length, int prot, int flags, int fd, long offset) {
        try {
            return (MemorySegment) MMAP.invokeExact(CAPTURE.get(), addr, length, prot, flags, fd, offset);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /** mmap's failure value ((void *) -1). */
    public static final long MAP_FAILED = -1L;

    public static int munmap(MemorySegment addr, long length) {
        try {
            return (int) MUNMAP.invokeExact(CAPTURE.get(), addr, length);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    public static int poll(MemorySegment fds, long nfds, int timeoutMs) {
        try {
            return (int) POLL.invokeExact(CAPTURE.get(), fds, nfds, timeoutMs);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /** ppoll(2) with a {@code struct timespec} timeout (nanosecond resolution) and no signal mask. */
    public static int ppoll(MemorySegment fds, long nfds, MemorySegment timespec) {
        try {
            return (int) PPOLL.invokeExact(CAPTURE.get(), fds, nfds, timespec, MemorySegment.NULL);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /**
     * Sets the calling thread's timer slack (prctl PR_SET_TIMERSLACK; the kernel's default is 50 us, by which it may
     * defer a timed wake-up); false if refused.
     */
    public static boolean timerSlack(long nanos) {
        try {
            return (int) PRCTL.invokeExact(PR_SET_TIMERSLACK, nanos) == 0;
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    public static long send(int fd, MemorySegment buf, long len, int flags) {
        try {
            return (long) SEND.invokeExact(CAPTURE.get(), fd, buf, len, flags);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    public static long sendto(int fd, MemorySegment buf, long len, int flags, MemorySegment addr, int addrLen) {
        try {
            return (long) SENDTO.invokeExact(CAPTURE.get(), fd, buf, len, flags, addr, addrLen);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /** {@code msgvec} is an array of struct mmsghdr (64 bytes each on LP64). */
    /** sendmmsg(2) with the mmsghdr vector at {@code msgvecAddress}, which the caller keeps alive. */
    public static int sendmmsg(int fd, long msgvecAddress, int vlen, int flags) {
        try {
            return (int) SENDMMSG.invokeExact(CAPTURE.get(), fd, msgvecAddress, vlen, flags);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /** sendmmsg(2) with the vector in {@code msgvec}, which the caller keeps alive during the call. */
    public static int sendmmsg(int fd, MemorySegment msgvec, int vlen, int flags) {
        return sendmmsg(fd, msgvec.address(), vlen, flags);
    }

    public static long recv(int fd, MemorySegment buf, long len, int flags) {
        try {
            return (long) RECV.invokeExact(CAPTURE.get(), fd, buf, len, flags);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    public static long recvfrom(int fd, MemorySegment buf, long len, int flags, MemorySegment addr, MemorySegment addrLen) {
        try {
            return (long) RECVFROM.invokeExact(CAPTURE.get(), fd, buf, len, flags, addr, addrLen);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    public static long read(int fd, MemorySegment buf, long len) {
        try {
            return (long) READ.invokeExact(CAPTURE.get(), fd, buf, len);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /**
     * read(2) of a non-blocking fd into native memory at {@code address} (kept alive by the caller): the byte count,
     * or -errno. Allocation-free (see READ_AT).
     */
    public static long readNonBlocking(int fd, long address, long len) {
        try {
            long n = (long) READ_AT.invokeExact(fd, address, len);
            return n >= 0 ? n : -errnoNow();
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /** write(2) to a non-blocking fd from native memory at {@code address}: the byte count, or -errno. Allocation-free. */
    public static long writeNonBlocking(int fd, long address, long len) {
        try {
            long n = (long) WRITE_AT.invokeExact(fd, address, len);
            return n >= 0 ? n : -errnoNow();
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /**
     * send(2) from native memory at {@code address} (0 with length 0 kicks a PACKET_TX_RING) that must not wait:
     * {@code flags} include MSG_DONTWAIT. The byte count, or -errno. Allocation-free (see SEND_AT).
     */
    public static long sendNonBlocking(int fd, long address, long len, int flags) {
        requireDontWait(flags);
        try {
            long n = (long) SEND_AT.invokeExact(fd, address, len, flags);
            return n >= 0 ? n : -errnoNow();
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /** sendmmsg(2) that must not wait ({@code flags} include MSG_DONTWAIT): messages sent, or -errno. Allocation-free. */
    public static int sendmmsgNonBlocking(int fd, long msgvecAddress, int vlen, int flags) {
        requireDontWait(flags);
        try {
            int n = (int) SENDMMSG_AT.invokeExact(fd, msgvecAddress, vlen, flags);
            return n >= 0 ? n : -errnoNow();
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /** recv(2) into native memory that must not wait ({@code flags} include MSG_DONTWAIT): length, or -errno. */
    public static long recvNonBlocking(int fd, long address, long len, int flags) {
        requireDontWait(flags);
        try {
            long n = (long) RECV_AT.invokeExact(fd, address, len, flags);
            return n >= 0 ? n : -errnoNow();
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /** poll(2) with a zero timeout of the pollfd array at {@code fdsAddress}: ready count, or -errno. Allocation-free. */
    public static int pollNow(long fdsAddress, long nfds) {
        try {
            int n = (int) POLL_AT.invokeExact(fdsAddress, nfds, 0);
            return n >= 0 ? n : -errnoNow();
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    private static void requireDontWait(int flags) {
        if ((flags & MSG_DONTWAIT) == 0) {
            throw new IllegalArgumentException("flags must include MSG_DONTWAIT (a critical downcall must not block), got "
                    + flags);
        }
    }

    /** The calling thread's errno, read in place; only meaningful right after a critical downcall failed. */
    private static int errnoNow() throws Throwable {
        return EVERYTHING.get(JAVA_INT, (long) ERRNO_LOCATION.invokeExact());
    }

    public static long write(int fd, MemorySegment buf, long len) {
        try {
            return (long) WRITE.invokeExact(CAPTURE.get(), fd, buf, len);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    public static int open(String path, int flags) {
        try (Arena a = Arena.ofConfined()) {
            return (int) OPEN.invokeExact(CAPTURE.get(), a.allocateFrom(path), flags, 0);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /** lseek(2)'s whence for the next data at or after an offset (ENXIO past the last data). */
    public static final int SEEK_DATA = 3;
    /** lseek(2)'s whence for the next hole at or after an offset (the file's end counts as one). */
    public static final int SEEK_HOLE = 4;

    /** Returns the new offset, or -1 with {@link #errno()} set (ENXIO: no data at or after {@code offset}). */
    public static long lseek(int fd, long offset, int whence) {
        try {
            return (long) LSEEK.invokeExact(CAPTURE.get(), fd, offset, whence);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /** Returns 0 when the interface does not exist (errno ENODEV) in the calling thread's namespace. */
    public static int ifNameToIndex(String name) {
        try (Arena a = Arena.ofConfined()) {
            return (int) IF_NAMETOINDEX.invokeExact(CAPTURE.get(), a.allocateFrom(name));
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /** Moves the calling thread into the namespace referred to by {@code fd}. */
    public static int setns(int fd, int nstype) {
        try {
            return (int) SETNS.invokeExact(CAPTURE.get(), fd, nstype);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    public static int geteuid() {
        try {
            return (int) GETEUID.invokeExact();
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    public static int getpid() {
        try {
            return (int) GETPID.invokeExact();
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }
}
