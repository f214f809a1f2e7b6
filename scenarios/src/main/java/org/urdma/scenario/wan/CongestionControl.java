package org.urdma.scenario.wan;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import org.urdma.nativeio.Libc;

/** A TCP socket's congestion control (TCP_CONGESTION, tcp(7)), set and read through FFM on the channel's descriptor. */
final class CongestionControl {
    private static final int IPPROTO_TCP = 6;
    private static final int TCP_CONGESTION = 13;

    private CongestionControl() {
    }

    static void set(SocketChannel ch, String name) {
        int fd = fd(ch);
        try (Arena a = Arena.ofConfined()) {
            MemorySegment v = a.allocateFrom(name);
            Libc.check(Libc.setsockopt(fd, IPPROTO_TCP, TCP_CONGESTION, v, name.length()), "setsockopt",
                "TCP_CONGESTION " + name);
        }
    }

    static String get(SocketChannel ch) {
        int fd = fd(ch);
        try (Arena a = Arena.ofConfined()) {
            MemorySegment v = a.allocate(16);
            MemorySegment len = a.allocate(ValueLayout.JAVA_INT);
            len.set(ValueLayout.JAVA_INT, 0, 16);
            Libc.check(Libc.getsockopt(fd, IPPROTO_TCP, TCP_CONGESTION, v, len), "getsockopt", "TCP_CONGESTION");
            return v.getString(0, StandardCharsets.US_ASCII);
        }
    }

    /** The channel's file descriptor (sun.nio.ch.SelChImpl.getFDVal; java.base/sun.nio.ch is opened by urdma's JVM flags). */
    private static int fd(SocketChannel ch) {
        try {
            var m = Class.forName("sun.nio.ch.SelChImpl").getMethod("getFDVal");
            m.setAccessible(true);
            return (int) m.invoke(ch);
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("cannot read a socket's descriptor (needs --add-opens java.base/sun.nio.ch): " + e);
        }
    }
}
