package org.urdma.transport.link.ethernet;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.urdma.nativeio.AfPacketOptions;
import org.urdma.nativeio.NetInterface;
import org.urdma.nativeio.netns.Netns;
import org.urdma.nativeio.netns.Topology;
import org.urdma.nativeio.netns.junit.RootAssumptions;
import org.urdma.transport.port.PortIdentity;
import org.urdma.transport.wire.FramingKind;

/**
 * A TAP enslaved to a bridge and up before urdma opens it, as the interop tests give urdma its port on the guest's
 * bridge: attaching gives it carrier, but the kernel counts the link up (and its bridge forwards to it) only from its
 * link-watch work a moment later. A peer that resolves the port right after an out-of-band exchange must find it
 * there, so the link may not be handed out before.
 */
@Tag("root")
class TapLinkUpTest {
    private static final int ROUNDS = 20;

    @BeforeAll
    static void root() {
        RootAssumptions.assumeRoot();
    }

    @Test
    void aTapOnABridgeIsRunningAndForwardedToWhenItsLinkIsOpened() throws Exception {
        try (Topology topo = Topology.create()) {
            String ns = topo.namespace("br");
            topo.disableIpv6(ns);
            topo.bridge(ns, "br0");
            List<String> late = new ArrayList<>();
            for (int i = 0; i < ROUNDS; i++) {
                String tap = "tapu" + i;
                topo.ip(ns, "tuntap", "add", "dev", tap, "mode", "tap");
                topo.ip(ns, "link", "set", tap, "master", "br0", "up");
                EthernetLinks.Opened o = Netns.call(ns, () -> EthernetLinks.open("tap:" + tap, "10.81.0.50/24", "02:75:72:64:6d:50",
                        m -> EthernetLinkConfig.of(FramingKind.ROCE2, PortIdentity.of(m, "10.81.0.50/24")), AfPacketOptions.Version.V2));
                try {
                    // looked at on this thread at once: a helper process would give the kernel time to catch up
                    boolean running = Netns.call(ns, () -> NetInterface.lookup(tap).isRunning());
                    if (!running) late.add(tap);
                    String port = topo.ip(ns, "-d", "link", "show", "dev", tap);
                    assertTrue(port.contains("bridge_slave state forwarding"), port);
                } finally {
                    o.closer().close();
                }
                topo.ip(ns, "link", "del", tap);
            }
            assertEquals(List.of(), late, "TAPs not yet running when their link was handed out");
        }
    }
}
