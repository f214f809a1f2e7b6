package org.urdma.tools.perf;

import static org.junit.jupiter.api.Assertions.*;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.urdma.nativeio.netns.Topology;
import org.urdma.nativeio.netns.junit.RootAssumptions;
import org.urdma.transport.cm.Keepalive;

/**
 * The client of a {@code urdma perf} run vanishes without closing the out-of-band TCP connection (its link is cut,
 * as when its host crashes): the server, waiting at a barrier for the end of the client's run, ends within the
 * keepalive bound with a one-line message and exit 1, instead of waiting out the barrier timeout.
 */
class PeerVanishesPerfTest {
    /** --help states the bound the code has. */
    @Test
    void helpStatesTheKeepaliveAndBarrierBounds() {
        String help = new picocli.CommandLine(new PerfTestCommand(PerfTest.WRITE_BW) {
        }).getUsageMessage(picocli.CommandLine.Help.Ansi.OFF).replaceAll("\\s+", " ");
        assertTrue(help.contains("up to " + NetPerfSession.BARRIER_TIMEOUT_SECONDS / 3600 + " h (or this if longer)"), help);
        assertTrue(help.contains("ends the run " + Keepalive.BOUND_SECONDS + " s after its last answer (TCP keepalive: idle "
                + Keepalive.IDLE_SECONDS + " s, " + Keepalive.COUNT + " probes " + Keepalive.INTERVAL_SECONDS + " s apart)"), help);
    }

    @Tag("root")
    @Test
    @Timeout(90)
    void aServerWhoseClientsLinkIsCutEndsWithinTheKeepaliveBound() throws Exception {
        RootAssumptions.assumeRoot();
        try (Topology t = Topology.create()) {
            String c = t.namespace("c"), s = t.namespace("s");
            t.veth(c, "eth0", s, "eth0", Topology.LinkOptions.mtu(9000));
            t.disableIpv6(c);
            t.disableIpv6(s);
            t.addAddress(c, "eth0", "10.88.0.1/24");
            t.addAddress(s, "eth0", "10.88.0.2/24");
            String[] run = {"perf", "write-bw", "-s", "65536", "-n", "100000000", "--link", "afpacket:eth0", "-p", "18520"};
            try (PerfProcess server = PerfProcess.start("server", s, concat(run, "--ip", "10.88.0.12/24"));
                 PerfProcess client = PerfProcess.start("client", c, concat(run, "--ip", "10.88.0.11/24", "10.88.0.2"))) {
                // perftest's exchange: the server prints the columns when the run starts, then waits at a barrier
                assertTrue(server.awaitOutput("#bytes", 60_000), "the run starts; " + client + "\n" + server);
                Thread.sleep(1_000); // WRITEs in flight, the barrier's last segment acknowledged
                t.down(c, "eth0");
                long cut = System.nanoTime();
                int exit = server.exit(Keepalive.BOUND_SECONDS * 1000L + 20_000);
                long ms = (System.nanoTime() - cut) / 1_000_000;
                String out = server.output();
                assertEquals(1, exit, out);
                assertTrue(out.matches("(?s).*urdma perf write-bw: perftest exchange, [^\\n]*: the peer 10\\.88\\.0\\.1 vanished: no answer to "
                        + "TCP keepalive for " + Keepalive.BOUND_SECONDS + " s \\(link cut or host down\\)\n.*"), out);
                assertFalse(out.contains("\tat "), "no stack trace: " + out);
                // the bound, plus the JVM's exit
                assertTrue(ms <= Keepalive.BOUND_SECONDS * 1000L + 4_000, "the server exited " + ms + " ms after the cut; " + out);
                System.out.println("server ended " + ms + " ms after the client's link was cut");
            }
        }
    }

    static String[] concat(String[] a, String... b) {
        String[] r = java.util.Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, r, a.length, b.length);
        return r;
    }
}
