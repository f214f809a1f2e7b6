package org.urdma.nativeio;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.channels.SocketChannel;
import org.junit.jupiter.api.Test;

class TcpCongestionTest {
    @Test
    void aSocketTakesTheCongestionControlItIsGivenAndReportsIt() throws Exception {
        assertTrue(TcpCongestion.available().contains("reno"), "reno is built into every kernel: " + TcpCongestion.available());
        try (SocketChannel s = SocketChannel.open()) {
            TcpCongestion.set(s, "reno"); // allowed without CAP_NET_ADMIN everywhere
            assertEquals("reno", TcpCongestion.get(s));
        }
    }

    @Test
    void aNameTheKernelDoesNotOfferIsRefusedInOneLineNamingTheOption() {
        String m = assertThrows(IllegalArgumentException.class, () -> TcpCongestion.requireAvailable("--cc", "warp")).getMessage();
        assertTrue(m.startsWith("--cc: 'warp' is not a congestion control this kernel offers (tcp_available_congestion_control: "), m);
        assertTrue(m.contains("reno") && !m.contains("\n"), m);
    }
}
