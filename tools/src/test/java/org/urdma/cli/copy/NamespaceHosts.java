package org.urdma.cli.copy;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.urdma.nativeio.netns.Netns;
import org.urdma.nativeio.netns.Topology;

/** Two hosts for the copy tests that run urdma as a user does: namespaces on a veth pair, and urdma processes in them. */
final class NamespaceHosts {
    private NamespaceHosts() {
    }

    /** {@return namespaces a (SUBNET.1) and b (SUBNET.2) joined by a veth pair, IPv4 only} */
    static String[] pair(Topology t, String subnet) throws Exception {
        String a = t.namespace("a"), b = t.namespace("b");
        t.veth(a, "eth0", b, "eth0", Topology.LinkOptions.mtu(1500));
        t.disableIpv6(a);
        t.disableIpv6(b);
        t.addAddress(a, "eth0", subnet + ".1/24");
        t.addAddress(b, "eth0", subnet + ".2/24");
        return new String[] {a, b};
    }

    /** {@return urdma ARGS running in namespace {@code ns} in a JVM of its own, with this JVM's flags and class path} */
    static Process start(String ns, String... args) throws Exception {
        List<String> cmd = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString()));
        for (String f : ManagementFactory.getRuntimeMXBean().getInputArguments()) if (f.startsWith("--") || f.startsWith("-D")) cmd.add(f);
        cmd.addAll(List.of("-Xmx512m", "-XX:+UseSerialGC", "-cp", System.getProperty("java.class.path"), "org.urdma.cli.UrdmaCli"));
        cmd.addAll(List.of(args));
        return Netns.processBuilder(ns, cmd.toArray(String[]::new)).redirectErrorStream(true).start();
    }

    /** An independent {@code sha256sum -c} of {@code manifest} in {@code dir} passes, with {@code files} OK lines. */
    static void assertManifestHolds(Path manifest, Path dir, int files) throws Exception {
        Process check = new ProcessBuilder("sha256sum", "--strict", "-c", manifest.toString()).directory(dir.toFile()).redirectErrorStream(true).start();
        String out = new String(check.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertEquals(0, check.waitFor(), out);
        assertEquals(files, out.lines().filter(l -> l.endsWith(": OK")).count(), out);
    }
}
