package org.urdma.tools.perf;

import static org.junit.jupiter.api.Assertions.*;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.urdma.nativeio.netns.Topology;
import org.urdma.nativeio.netns.junit.RootAssumptions;

/**
 * {@code urdma perf --link afpacket:IF --ip ...} refuses, in one line on stderr and with exit 1, a port address the
 * kernel owns (the kernel would answer every RoCEv2 frame to it with ICMP port unreachable) and an interface that is
 * down or has no carrier, before it opens anything or waits for a peer.
 */
@Tag("root")
class PerfRefusesUnusableInterfaceTest {
    private static Topology topo;
    private static String ns, other;

    @BeforeAll
    static void namespaces() {
        RootAssumptions.assumeRoot();
        topo = Topology.create();
        ns = topo.namespace("a");
        other = topo.namespace("b");
        topo.veth(ns, "eth0", other, "eth0", Topology.LinkOptions.mtu(1500));
        topo.veth(ns, "eth1", other, "eth1", Topology.LinkOptions.mtu(1500));
        topo.addAddress(ns, "eth0", "10.89.0.1/24");
        topo.ip(ns, "addr", "add", "10.89.0.5/24", "dev", "eth0", "label", "eth0:1"); // a secondary, labelled address
        topo.addAddress(ns, "eth1", "10.89.1.1/24");
    }

    @AfterAll
    static void teardown() {
        if (topo != null) topo.close();
    }

    record Result(int exit, String err) {
    }

    /** A perf server (no peer) in {@code ns}: it would wait for a client, so any quick exit is a refusal. */
    static Result perf(String... args) throws Exception {
        PerfTestCommand c = new PerfTestCommand(PerfTest.WRITE_BW) {
        };
        // parsed where urdma runs (ip netns exec): --link looks its interface up in that namespace
        topo.call(ns, () -> new picocli.CommandLine(c).parseArgs(args));
        PrintStream oldErr = System.err;
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        System.setErr(new PrintStream(err, true, StandardCharsets.UTF_8));
        try {
            int rc = topo.call(ns, () -> PerfRunner.run(PerfTest.WRITE_BW, c.o, c.net, new PrintStream(new ByteArrayOutputStream())));
            return new Result(rc, err.toString(StandardCharsets.UTF_8));
        } finally {
            System.setErr(oldErr);
        }
    }

    static void assertOneLine(Result r, String expected) {
        assertEquals(1, r.exit(), r.err());
        assertEquals("urdma perf write-bw: " + expected + "\n", r.err());
    }

    @Test
    void anAddressTheKernelOwnsOnTheInterfaceIsRefused() throws Exception {
        assertOneLine(perf("--link", "afpacket:eth0", "--ip", "10.89.0.1/24", "--cm-timeout", "1"),
                "--ip 10.89.0.1: the kernel owns this address (on eth0), so it would answer RoCEv2 frames to it with ICMP port "
                        + "unreachable; give the port an address of its own");
        assertOneLine(perf("--link", "afpacket:eth0", "--ip", "10.89.0.5/24", "--cm-timeout", "1"),
                "--ip 10.89.0.5: the kernel owns this address (on eth0), so it would answer RoCEv2 frames to it with ICMP port "
                        + "unreachable; give the port an address of its own");
    }

    @Test
    void anAddressTheKernelOwnsOnAnotherInterfaceIsRefusedToo() throws Exception {
        Result r = perf("--link", "afpacket:eth0", "--ip", "10.89.1.1/24", "--cm-timeout", "1");
        assertEquals(1, r.exit(), r.err());
        assertTrue(r.err().startsWith("urdma perf write-bw: --ip 10.89.1.1: the kernel owns this address (on eth1)"), r.err());
        assertEquals(1, r.err().lines().count(), r.err());
    }

    @Test
    void anInterfaceThatIsDownIsRefused() throws Exception {
        topo.down(ns, "eth1");
        try {
            assertOneLine(perf("--link", "afpacket:eth1", "--ip", "10.89.1.11/24", "--cm-timeout", "1"),
                    "interface eth1 is down (ip link set eth1 up)");
        } finally {
            topo.up(ns, "eth1");
        }
    }

    @Test
    void anInterfaceWithoutCarrierIsRefused() throws Exception {
        topo.down(other, "eth1"); // the veth's peer: eth1 stays up but loses its carrier
        try {
            assertOneLine(perf("--link", "afpacket:eth1", "--ip", "10.89.1.11/24", "--cm-timeout", "1"),
                    "interface eth1 is up but has no carrier (a cable out, or for a veth: its peer is down)");
        } finally {
            topo.up(other, "eth1");
        }
    }
}
