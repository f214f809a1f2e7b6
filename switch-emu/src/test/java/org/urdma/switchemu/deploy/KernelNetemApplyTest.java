package org.urdma.switchemu.deploy;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.urdma.nativeio.netns.Netns;
import org.urdma.nativeio.netns.junit.RootAssumptions;
import org.urdma.switchemu.topo.NetemProbe;
import org.urdma.switchemu.topo.Topology;
import org.urdma.switchemu.topo.TopologyException;
import org.urdma.switchemu.topo.TopologyParser;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Set;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The netem plan applied to real veths in namespaces, whatever the probe said: where the kernel takes the
 * qdisc it is there ({@code tc qdisc show}); where it refuses (no sch_netem, as here), an {@code auto} link
 * goes back to the switch stage and says so, and a {@code kernel} link fails naming its line.
 */
@Tag("root")
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class KernelNetemApplyTest {
    @BeforeAll
    static void root() {
        RootAssumptions.assumeRoot();
    }

    private static Topology topology(String mode) {
        return TopologyParser.parse("""
            hosts: [{name: h1}, {name: h2}]
            switches: [{name: s1}]
            links:
              - {endpoints: [h1, s1], rate: 10G}
              - endpoints: [s1, h2]
                rate: 1G
                impair: {delay: 5ms, loss: 1%}
            """ + "    impairment: " + mode + "\n", "n.yaml");
    }

    private static boolean kernelTakesNetem(String ns, String dev) {
        try {
            Netns.exec(ns, "tc", "qdisc", "add", "dev", dev, "root", "netem", "delay", "1ms");
            Netns.exec(ns, "tc", "qdisc", "del", "dev", dev, "root");
            return true;
        } catch (RuntimeException e) {
            return false;
        }
    }

    @Test
    void autoUsesTheKernelWhereItTakesNetemElseTheSwitchAndSaysSo() throws Exception {
        Topology t = topology("auto");
        ByteArrayOutputStream text = new ByteArrayOutputStream();
        TopologyDeployer d = new TopologyDeployer(Path.of("n.yaml"), Path.of("/tmp"), "x",
            new PrintStream(text, true, StandardCharsets.UTF_8));
        try (org.urdma.nativeio.netns.Topology net = org.urdma.nativeio.netns.Topology.create()) {
            NetworkBuilder.Network n = NetworkBuilder.build(t, net, ns -> { });
            boolean netem = kernelTakesNetem(n.namespace("h2"), "eth0");
            // plan as if the probe had found sch_netem, so the kernel is asked in any case
            Set<Topology.Link> kernel = d.applyNetem(KernelNetem.plan(t, NetemProbe.Result.LOADED), n);
            String out = text.toString(StandardCharsets.UTF_8);
            if (netem) {
                assertEquals(Set.of(t.links().get(1)), kernel, out);
                assertTrue(Netns.exec(n.namespace("s1"), "tc", "qdisc", "show", "dev", "p1").contains("netem"));
                assertTrue(Netns.exec(n.namespace("h2"), "tc", "qdisc", "show", "dev", "eth0").contains("netem"));
            } else {
                assertTrue(kernel.isEmpty(), out);
                assertTrue(out.contains("tc netem failed") && out.contains("the switch stage impairs the link of line 5"),
                    out);
                assertTrue(!Netns.exec(n.namespace("s1"), "tc", "qdisc", "show", "dev", "p1").contains("netem"));
            }
        }
    }

    @Test
    void kernelFailsNamingTheLineWhenTheKernelRefuses() throws Exception {
        Topology t = topology("kernel");
        TopologyDeployer d = new TopologyDeployer(Path.of("n.yaml"), Path.of("/tmp"), "x",
            new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8));
        try (org.urdma.nativeio.netns.Topology net = org.urdma.nativeio.netns.Topology.create()) {
            NetworkBuilder.Network n = NetworkBuilder.build(t, net, ns -> { });
            org.junit.jupiter.api.Assumptions.assumeTrue(!kernelTakesNetem(n.namespace("h2"), "eth0"),
                "this kernel has sch_netem: nothing refuses");
            TopologyException e = assertThrows(TopologyException.class,
                () -> d.applyNetem(KernelNetem.plan(t, NetemProbe.Result.LOADED), n));
            assertEquals(5, e.line());
            assertTrue(e.getMessage().contains("tc qdisc add dev p1 root netem delay 5000us loss random 1%"),
                e.getMessage());
        }
    }
}
