package org.urdma.nativeio;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.channels.NetworkChannel;

/**
 * A socket's send and receive buffers set past {@code net.core.wmem_max} and {@code rmem_max}
 * ({@code SO_SNDBUFFORCE}, {@code SO_RCVBUFFORCE}), which a process with CAP_NET_ADMIN may do and the JDK cannot.
 */
public final class SocketBuffers {
    private SocketBuffers() {
    }

    /** {@return whether both buffers were set to {@code bytes} (false without CAP_NET_ADMIN: the caller sets them capped)} */
    public static boolean force(NetworkChannel channel, int bytes) {
        int fd = JdkChannels.fd(channel);
        try (Arena a = Arena.ofConfined()) {
            MemorySegment v = a.allocate(ValueLayout.JAVA_INT);
            v.set(ValueLayout.JAVA_INT, 0, bytes);
            return Libc.setsockopt(fd, LinuxConstants.SOL_SOCKET, LinuxConstants.SO_SNDBUFFORCE, v, 4) == 0
                && Libc.setsockopt(fd, LinuxConstants.SOL_SOCKET, LinuxConstants.SO_RCVBUFFORCE, v, 4) == 0;
        }
    }
}
