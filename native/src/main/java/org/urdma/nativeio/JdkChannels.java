package org.urdma.nativeio;

import java.lang.reflect.Method;
import java.nio.channels.NetworkChannel;

/**
 * The file descriptor of a JDK socket channel, for the socket options the JDK does not offer. It comes from the
 * channel's {@code sun.nio.ch} implementation, which the launcher's JVM flags export to this code.
 */
final class JdkChannels {
    private JdkChannels() {
    }

    static int fd(NetworkChannel channel) {
        try {
            Method m = Class.forName("sun.nio.ch.SelChImpl").getMethod("getFDVal");
            return (int) m.invoke(channel);
        } catch (ReflectiveOperationException | RuntimeException e) {
            throw new IllegalStateException("socket options: this JVM does not export sun.nio.ch (run with ./urdma's JVM flags): " + e);
        }
    }
}
