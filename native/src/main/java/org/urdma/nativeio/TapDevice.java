package org.urdma.nativeio;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;


import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;
import static org.urdma.nativeio.LinuxConstants.*;

/**
 * A TAP device (/dev/net/tun, IFF_TAP | IFF_NO_PI): every read returns one whole Ethernet frame, every
 * write sends one. Non-blocking; opened in the calling thread's network namespace. A TAP this class
 * creates is not persistent, so the interface disappears on {@link #close()}; a persistent TAP that
 * already existed ({@code ip tuntap add}) is attached to and left in place, with its bridge port and
 * addresses, when closed. Bring it up with {@link NetInterface#setUp} or ip.
 */
public final class TapDevice implements AutoCloseable {
    private final String name;
    private final Arena arena = Arena.ofShared();
    private final MemorySegment pollFd;
    private final boolean created;
    private int fd;

    private TapDevice(String requested) {
        boolean ok = false;
        fd = -1;
        try {
            fd = Libc.open("/dev/net/tun", O_RDWR | O_NONBLOCK | O_CLOEXEC);
            if (fd < 0) {
                int errno = Libc.errno();
                if (errno == Errno.EPERM || errno == Errno.EACCES) {
                    throw new NativeException("open", errno, "open(/dev/net/tun) failed: " + Libc.strerror(errno)
                            + " - TAP needs CAP_NET_ADMIN (run as root)");
                }
                throw NativeException.of("open", errno, "/dev/net/tun");
            }
            MemorySegment ifr = NetInterface.newIfreq(arena, requested == null ? "" : requested);
            ifr.set(JAVA_SHORT, NetInterface.IFR_UNION, (short) (IFF_TAP | IFF_NO_PI));
            if (Libc.ioctl(fd, TUNSETIFF, ifr) < 0) {
                int errno = Libc.errno();
                if (errno == Errno.EPERM || errno == Errno.EACCES) {
                    throw new NativeException("ioctl", errno, "ioctl(TUNSETIFF) failed: " + Libc.strerror(errno)
                            + " - TAP needs CAP_NET_ADMIN (run as root)");
                }
                throw NativeException.of("ioctl", errno, "TUNSETIFF IFF_TAP|IFF_NO_PI, name '"
                        + (requested == null ? "" : requested) + "'");
            }
            this.name = ifr.getString(0, StandardCharsets.UTF_8);
            // A persistent device existed before us (TUNSETIFF attached to it): someone else owns its
            // lifetime, so leave it persistent. A device TUNSETIFF created is never persistent and goes
            // away with the last descriptor.
            Libc.check(Libc.ioctl(fd, TUNGETIFF, ifr), "ioctl", "TUNGETIFF on '" + name + "'");
            this.created = (ifr.get(JAVA_SHORT, NetInterface.IFR_UNION) & IFF_PERSIST) == 0;
            pollFd = arena.allocate(8, 4);
            pollFd.set(JAVA_INT, 0, fd);
            ok = true;
        } finally {
            if (!ok) {
                closeQuietly();
            }
        }
    }

    /**
     * Creates a TAP device named {@code name}, or a kernel-chosen "tapN" name if {@code name} is null.
     *
     * @throws NativeException "needs CAP_NET_ADMIN (run as root)" without privileges
     */
    public static TapDevice open(String name) {
        if (name != null) {
            NetInterface.validateName(name);
        }
        return new TapDevice(name);
    }

    /** The actual interface name (the kernel's choice if none was asked for). */
    public String name() {
        return name;
    }

    /**
     * True when this open created the interface (it disappears on {@link #close()}); false when it
     * attached to a persistent TAP that already existed (it stays after close).
     */
    public boolean created() {
        return created;
    }

    public int fd() {
        return fd;
    }

    /**
     * Reads one frame into {@code buf[offset, offset+maxLen)} (non-blocking; {@code buf} must be a native segment
     * that stays alive during the call).
     *
     * @return frame length, or -errno (-EAGAIN when none is queued)
     */
    public int read(MemorySegment buf, long offset, int maxLen) {
        java.util.Objects.checkFromIndexSize(offset, maxLen, buf.byteSize());
        // by raw address and without errno capture: allocation-free whatever C2 inlines (Libc.readNonBlocking)
        return (int) Libc.readNonBlocking(fd, buf.address() + offset, maxLen);
    }

    /**
     * Writes one frame (non-blocking).
     *
     * @return bytes written, or -errno (-EAGAIN / -EIO when the device is down)
     */
    public int write(MemorySegment buf, long offset, int length) {
        java.util.Objects.checkFromIndexSize(offset, length, buf.byteSize());
        return (int) Libc.writeNonBlocking(fd, buf.address() + offset, length);
    }

    /** Waits up to {@code timeoutMs} for a frame to read; false on timeout or EINTR. */
    public boolean pollIn(int timeoutMs) {
        pollFd.set(JAVA_SHORT, 4, POLLIN);
        pollFd.set(JAVA_SHORT, 6, (short) 0);
        int rc = timeoutMs == 0 ? Libc.pollNow(pollFd.address(), 1) : Libc.poll(pollFd, 1, timeoutMs);
        if (rc < 0) {
            int errno = timeoutMs == 0 ? -rc : Libc.errno();
            if (errno == Errno.EINTR) {
                return false;
            }
            throw NativeException.of("poll", errno, "TAP '" + name + "'");
        }
        return rc > 0;
    }

    public boolean isClosed() {
        return fd < 0;
    }

    @Override
    public void close() {
        closeQuietly();
    }

    private void closeQuietly() {
        if (fd >= 0) {
            Libc.close(fd);
            fd = -1;
        }
        if (arena.scope().isAlive()) {
            arena.close();
        }
    }

    @Override
    public String toString() {
        return "TapDevice[" + name + ", fd " + fd + "]";
    }

}
