package org.urdma.tools.pingpong;

import static org.junit.jupiter.api.Assertions.*;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.urdma.nativeio.netns.Topology;
import org.urdma.nativeio.netns.junit.RootAssumptions;
import picocli.CommandLine;

/** {@code urdma pingpong} refuses, in one line and with exit 1, a port address the kernel owns and a down interface. */
@Tag("root")
class PingpongRefusesKernelAddressTest {
    static String run(Topology t, String ns, String... args) throws Exception {
        PingpongCommand c = new PingpongCommand();
        new CommandLine(c).parseArgs(args);
        PrintStream oldErr = System.err;
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        System.setErr(new PrintStream(err, true, StandardCharsets.UTF_8));
        try {
            int rc = t.call(ns, () -> c.run(new PrintStream(new ByteArrayOutputStream())));
            assertEquals(1, rc, err.toString(StandardCharsets.UTF_8));
            return err.toString(StandardCharsets.UTF_8);
        } finally {
            System.setErr(oldErr);
        }
    }

    @Test
    void theKernelsOwnAddressAndADownInterfaceAreRefused() throws Exception {
        RootAssumptions.assumeRoot();
        try (Topology t = Topology.create()) {
            String a = t.namespace("a"), b = t.namespace("b");
            t.veth(a, "eth0", b, "eth0", Topology.LinkOptions.mtu(1500));
            t.addAddress(a, "eth0", "10.90.0.1/24");
            assertEquals("urdma pingpong: --ip 10.90.0.1: the kernel owns this address (on eth0), so it would answer RoCEv2 frames "
                    + "to it with ICMP port unreachable; give the port an address of its own\n",
                    run(t, a, "--link", "afpacket:eth0", "--ip", "10.90.0.1/24", "--timeout-s", "1"));
            t.down(a, "eth0");
            assertEquals("urdma pingpong: interface eth0 is down (ip link set eth0 up)\n",
                    run(t, a, "--link", "afpacket:eth0", "--ip", "10.90.0.11/24", "--timeout-s", "1"));
        }
    }
}
