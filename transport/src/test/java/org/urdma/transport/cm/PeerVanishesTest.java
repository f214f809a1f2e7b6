package org.urdma.transport.cm;

import static org.junit.jupiter.api.Assertions.*;

import java.net.InetSocketAddress;
import java.time.Duration;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.urdma.nativeio.netns.Topology;
import org.urdma.nativeio.netns.junit.RootAssumptions;

/**
 * A peer that vanishes without closing the out-of-band TCP connection (its link is cut): the side waiting for it
 * with a long read timeout (as between two barriers of a run) fails within {@link Keepalive#BOUND_SECONDS}, naming
 * the peer as gone, instead of waiting out the read timeout.
 */
@Tag("root")
class PeerVanishesTest {
    @BeforeAll
    static void root() {
        RootAssumptions.assumeRoot();
    }

    @Test
    @Timeout(40)
    void aServerWhoseClientsLinkIsCutFailsWithinTheKeepaliveBound() throws Exception {
        ConnectionManager cm = new ConnectionManager(new ConnectionManager.Config(Duration.ofSeconds(5), Duration.ofSeconds(5)));
        try (cm; Topology t = Topology.create()) {
            String a = t.namespace("a"), b = t.namespace("b");
            t.veth(a, "eth0", b, "eth0", Topology.LinkOptions.defaults());
            t.addAddress(a, "eth0", "10.87.0.1/24");
            t.addAddress(b, "eth0", "10.87.0.2/24");
            try (ConnectionManager.Listener l = t.call(b, () -> cm.listen(new InetSocketAddress(18515)));
                 ExchangeChannel client = t.call(a, () -> cm.connect(new InetSocketAddress("10.87.0.2", 18515)));
                 ExchangeChannel server = l.accept(Duration.ofSeconds(5))) {
                client.write(new byte[] {1}, "hello");
                assertEquals(1, server.read(1, "hello")[0]);
                server.readTimeout(Duration.ofHours(1)); // the peer's run may take long: only keepalive can tell
                t.down(a, "eth0");
                long start = System.nanoTime();
                ConnectionException e = assertThrows(ConnectionException.class, () -> server.read(1, "end of phase 0"));
                long ms = (System.nanoTime() - start) / 1_000_000;
                assertTrue(e.getMessage().contains("vanished: no answer to TCP keepalive for " + Keepalive.BOUND_SECONDS + " s"),
                        e.getMessage());
                assertTrue(e.getMessage().startsWith("end of phase 0: the peer "), e.getMessage());
                assertTrue(ms <= Keepalive.BOUND_SECONDS * 1000L + 2_000, "failed after " + ms + " ms");
            }
        }
    }
}
