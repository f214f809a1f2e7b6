package org.urdma.nativeio;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.StandardSocketOptions;
import java.nio.channels.SocketChannel;
import org.junit.jupiter.api.Test;

class SocketBuffersTest {
    @Test
    void rootSetsBothBuffersPastTheKernelsCapAndOthersAreToldTheyCannot() throws Exception {
        int bytes = 64 << 20; // above any net.core.wmem_max and rmem_max a distribution ships
        try (SocketChannel s = SocketChannel.open()) {
            boolean forced = SocketBuffers.force(s, bytes);
            assertEquals(Libc.geteuid() == 0, forced, "CAP_NET_ADMIN is root's here");
            if (forced) {
                assertTrue(s.getOption(StandardSocketOptions.SO_SNDBUF) >= bytes, "SO_SNDBUF " + s.getOption(StandardSocketOptions.SO_SNDBUF));
                assertTrue(s.getOption(StandardSocketOptions.SO_RCVBUF) >= bytes, "SO_RCVBUF " + s.getOption(StandardSocketOptions.SO_RCVBUF));
            }
        }
    }
}
