package org.urdma.tools.rping;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.urdma.nativeio.netns.Netns;
import org.urdma.nativeio.netns.Topology;
import org.urdma.nativeio.netns.junit.RootAssumptions;

/** urdma rping ↔ urdma rping through rdma_cm on QP1, two JVMs in two namespaces joined by a veth pair (AF_PACKET, RoCEv2). */
@Tag("root")
class RpingTwoJvmVethTest {
    @BeforeAll
    static void root() {
        RootAssumptions.assumeRoot();
    }

    @Test
    void fiftyValidatedPingsBetweenTwoJvms() throws Exception {
        try (Topology t = Topology.create()) {
            String a = t.namespace("a"), b = t.namespace("b");
            t.veth(a, "eth0", b, "eth0", Topology.LinkOptions.mtu(1500));
            t.disableIpv6(a);
            t.disableIpv6(b);
            t.addAddress(a, "eth0", "10.94.0.1/24");
            t.addAddress(b, "eth0", "10.94.0.2/24");
            Process server = start(b, "-s", "-v", "--link", "afpacket:eth0", "--ip", "10.94.0.12/24");
            Thread.sleep(3000); // the server's device open and listening (a REQ before that is rejected, reason 8)
            Process client = start(a, "-c", "-a", "10.94.0.12", "-C", "50", "-v", "-V", "--link", "afpacket:eth0", "--ip", "10.94.0.11/24");
            try {
                String c = finish(client, "client");
                String s = finish(server, "server");
                assertEquals(50, c.lines().filter(l -> l.startsWith("ping data: rdma-ping-")).count(), c);
                assertEquals(50, s.lines().filter(l -> l.startsWith("server ping data: rdma-ping-")).count(), s);
                assertTrue(c.contains("ping data: rdma-ping-49: "), c);
            } finally {
                server.destroyForcibly();
                client.destroyForcibly();
            }
        }
    }

    private static Process start(String ns, String... args) throws Exception {
        List<String> cmd = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString()));
        for (String f : ManagementFactory.getRuntimeMXBean().getInputArguments()) if (f.startsWith("--") || f.startsWith("-D")) cmd.add(f);
        cmd.addAll(List.of("-Xmx256m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1",
                "-cp", System.getProperty("java.class.path"), "org.urdma.cli.UrdmaCli", "rping"));
        cmd.addAll(List.of(args));
        return Netns.processBuilder(ns, cmd.toArray(String[]::new)).redirectErrorStream(true).start();
    }

    private static String finish(Process p, String role) throws Exception {
        boolean done = p.waitFor(90, TimeUnit.SECONDS);
        if (!done) p.destroyForcibly();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(done, role + " still running after 90 s:\n" + out);
        assertEquals(0, p.exitValue(), role + ":\n" + out);
        return out;
    }
}
