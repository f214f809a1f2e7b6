package org.urdma.tools.rdmacm;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.urdma.nativeio.netns.Netns;
import org.urdma.nativeio.netns.Topology;
import org.urdma.nativeio.netns.junit.RootAssumptions;
import org.urdma.transport.api.DeviceOptions;
import org.urdma.transport.api.Urdma;
import org.urdma.transport.api.UrdmaDevice;

/**
 * mckey between two namespaces over a veth, each device on an AF_PACKET port: the receiving port accepts the group's
 * MAC (01:00:5e:01:02:03) only once a QP joined, and both joined QPs get every message.
 */
@Tag("root")
class MckeyVethTest {
    private static final Duration T = Duration.ofSeconds(10);

    @BeforeAll
    static void root() {
        RootAssumptions.assumeRoot();
    }

    @Test
    void bothJoinedQpsInTheOtherNamespaceGetEveryMessage() throws Exception {
        PrintStream quiet = new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.US_ASCII);
        try (Topology topo = Topology.create()) {
            String nsA = topo.namespace("a");
            String nsB = topo.namespace("b");
            topo.veth(nsA, "eth0", nsB, "eth0", Topology.LinkOptions.mtu(1500).withMacs("02:00:00:ac:00:01", "02:00:00:ac:00:02"));
            topo.disableIpv6(nsA);
            topo.disableIpv6(nsB);
            try (UrdmaDevice a = Netns.call(nsA, () -> Urdma.open(DeviceOptions.afPacket("eth0").withIp("10.78.0.11/24")));
                 UrdmaDevice b = Netns.call(nsB, () -> Urdma.open(DeviceOptions.afPacket("eth0").withIp("10.78.0.12/24")));
                 Mckey r1 = new Mckey(b, 10, 1000, quiet);
                 Mckey r2 = new Mckey(b, 10, 1000, quiet);
                 Mckey s = new Mckey(a, 10, 1000, quiet)) {
                r1.join("239.1.2.3", false);
                r2.join("239.1.2.3", false);
                CompletableFuture<Integer> got = CompletableFuture.supplyAsync(() -> r1.receive(T) + r2.receive(T),
                        r -> Thread.ofPlatform().daemon().start(r));
                s.join("239.1.2.3", true);
                s.send(T);
                assertEquals(20, (int) got.get());
            }
        }
    }
}
