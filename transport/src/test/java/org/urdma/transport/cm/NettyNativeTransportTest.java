package org.urdma.transport.cm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/** The out-of-band TCP runs on Netty's native io_uring or epoll transport, not NIO (the design card's choice). */
class NettyNativeTransportTest {

    @Test
    void connectionManagerRunsOnANativeTransportOnLinuxX86() {
        String os = System.getProperty("os.name"), arch = System.getProperty("os.arch");
        Assumptions.assumeTrue(os.equals("Linux") && arch.equals("amd64"), "native jars are for linux-x86_64 only");
        try (ConnectionManager cm = new ConnectionManager()) {
            assertEquals(ConnectionManager.nettyTransport(), cm.transport());
            if (cm.transport().equals("nio")) {
                String why = "Netty fell back to NIO: io_uring: " + ConnectionManager.unavailabilityCause("io_uring")
                        + "; epoll: " + ConnectionManager.unavailabilityCause("epoll");
                // io_uring may be refused by the kernel or seccomp, but epoll needs nothing a Linux host lacks:
                // NIO here means the native jars are missing from the classpath (as with Netty 4.2.20)
                fail(why);
            }
            assertTrue(cm.transport().equals("io_uring") || cm.transport().equals("epoll"), cm.transport());
        }
    }
}
