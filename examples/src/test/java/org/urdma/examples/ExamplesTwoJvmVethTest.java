package org.urdma.examples;

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
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.urdma.nativeio.netns.Netns;
import org.urdma.nativeio.netns.Topology;
import org.urdma.nativeio.netns.junit.RootAssumptions;

/**
 * Every example as a user runs it: server and client in two JVMs, each in its own network namespace, joined by a
 * veth pair, over AF_PACKET with RoCEv2 (the kernel owns .1/.2 for the out-of-band TCP, urdma's ports are .11/.12).
 */
@Tag("root")
class ExamplesTwoJvmVethTest {
    @BeforeAll
    static void root() {
        RootAssumptions.assumeRoot();
    }

    @ParameterizedTest
    @CsvSource({
        "SendRecv,      received and checked 100 messages,  server confirmed 100",
        "WriteImm,      received 16 writes with immediate,  wrote 16 chunks",
        "RdmaRead,      served 65536 bytes,                 read and checked 65536 bytes",
        "AtomicCounter, counter is 300 after 3 clients,     3 clients did 300 fetch-and-adds",
        "EventServer,   received and checked 100 messages,  server confirmed 100",
    })
    void exampleRunsBetweenTwoJvmsInTwoNamespacesAndChecksItsData(String example, String serverSays, String clientSays)
            throws Exception {
        try (Topology t = Topology.create()) {
            String a = t.namespace("a"), b = t.namespace("b");
            t.veth(a, "eth0", b, "eth0", Topology.LinkOptions.mtu(1500));
            t.disableIpv6(a);
            t.disableIpv6(b);
            t.addAddress(a, "eth0", "10.93.0.1/24");
            t.addAddress(b, "eth0", "10.93.0.2/24");
            Process server = start(b, example, "server", "--link", "afpacket:eth0", "--ip", "10.93.0.12/24");
            Process client = start(a, example, "client", "10.93.0.2", "--link", "afpacket:eth0", "--ip", "10.93.0.11/24");
            try {
                String c = finish(client, "client");
                String s = finish(server, "server");
                assertTrue(s.contains("server: ") && s.contains(serverSays), s);
                assertTrue(c.contains("client: ") && c.contains(clientSays), c);
            } finally {
                server.destroyForcibly();
                client.destroyForcibly();
            }
        }
    }

    private static Process start(String ns, String example, String... args) throws Exception {
        List<String> cmd = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString()));
        for (String f : ManagementFactory.getRuntimeMXBean().getInputArguments()) if (f.startsWith("--") || f.startsWith("-D")) cmd.add(f);
        cmd.addAll(List.of("-Xmx256m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", // small and quick to start on a busy host
                "-cp", System.getProperty("java.class.path"), "org.urdma.examples." + example));
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
