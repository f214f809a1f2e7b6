package org.urdma.nativeio;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.channels.NetworkChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;

/**
 * A kernel TCP socket's congestion control ({@code setsockopt(TCP_CONGESTION)}), which the JDK's socket options lack,
 * set on a JDK channel's descriptor ({@link JdkChannels}).
 */
public final class TcpCongestion {
    private static final int IPPROTO_TCP = 6;
    private static final int TCP_CONGESTION = 13;
    /** TCP_CA_NAME_MAX in the kernel. */
    private static final int NAME_MAX = 16;
    private static final Path AVAILABLE = Path.of("/proc/sys/net/ipv4/tcp_available_congestion_control");
    private static final Path ALLOWED = Path.of("/proc/sys/net/ipv4/tcp_allowed_congestion_control");

    private TcpCongestion() {
    }

    /** {@return the congestion controls this kernel offers (its modules loaded)} */
    public static List<String> available() {
        return names(AVAILABLE);
    }

    /** {@return those a process without CAP_NET_ADMIN may set} */
    public static List<String> allowed() {
        return names(ALLOWED);
    }

    private static List<String> names(Path p) {
        try {
            return Arrays.stream(Files.readString(p).trim().split("\\s+")).filter(s -> !s.isEmpty()).toList();
        } catch (IOException e) {
            return List.of();
        }
    }

    /** Throws a one-line error naming {@code option} when the kernel does not offer {@code name}. */
    public static void requireAvailable(String option, String name) {
        List<String> a = available();
        if (!a.contains(name)) {
            throw new IllegalArgumentException(option + ": '" + name + "' is not a congestion control this kernel offers ("
                    + AVAILABLE.getFileName() + ": " + String.join(" ", a) + ")");
        }
    }

    /** Sets the socket's congestion control; an unprivileged process may set only the allowed ones. */
    public static void set(NetworkChannel channel, String name) {
        byte[] b = name.getBytes(StandardCharsets.US_ASCII);
        if (b.length >= NAME_MAX) throw new IllegalArgumentException("TCP_CONGESTION: name longer than " + (NAME_MAX - 1) + " bytes: " + name);
        try (Arena a = Arena.ofConfined()) {
            MemorySegment v = a.allocate(b.length);
            v.copyFrom(MemorySegment.ofArray(b));
            if (Libc.setsockopt(JdkChannels.fd(channel), IPPROTO_TCP, TCP_CONGESTION, v, b.length) < 0) {
                int errno = Libc.errno();
                if (errno == Errno.EPERM) {
                    throw new IllegalArgumentException("congestion control '" + name + "' needs CAP_NET_ADMIN here ("
                            + ALLOWED.getFileName() + ": " + String.join(" ", allowed()) + ")");
                }
                throw NativeException.of("setsockopt", errno, "TCP_CONGESTION " + name);
            }
        }
    }

    /** {@return the socket's congestion control} */
    public static String get(NetworkChannel channel) {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment v = a.allocate(NAME_MAX);
            MemorySegment len = a.allocate(ValueLayout.JAVA_INT);
            len.set(ValueLayout.JAVA_INT, 0, NAME_MAX);
            Libc.check(Libc.getsockopt(JdkChannels.fd(channel), IPPROTO_TCP, TCP_CONGESTION, v, len), "getsockopt", "TCP_CONGESTION");
            return v.getString(0, StandardCharsets.US_ASCII);
        }
    }
}
