package org.urdma.cli.sw;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.urdma.cli.UrdmaCli;
import org.urdma.nativeio.netns.junit.RootAssumptions;
import org.urdma.switchemu.deploy.NetworkBuilder;
import org.urdma.switchemu.topo.TopologyParser;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@code urdma switch FILE --netns NS --duration 1s}: runs, stops by itself, prints per-port counters. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class SwitchCommandTest {
    @Test
    void runsForTheDurationAndPrintsPerPortCounters() throws Exception {
        RootAssumptions.assumeRoot();
        Path file = Path.of("..", "examples", "topologies", "two-hosts.yaml");
        PrintStream saved = System.out;
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (org.urdma.nativeio.netns.Topology net = org.urdma.nativeio.netns.Topology.create()) {
            NetworkBuilder.Network n = NetworkBuilder.build(TopologyParser.parse(file), net, ns -> { });
            System.setOut(new PrintStream(out, true, StandardCharsets.UTF_8));
            long t0 = System.nanoTime();
            int rc = UrdmaCli.commandLine().execute("switch", file.toString(), "--netns", n.namespace("s1"),
                "--duration", "1s");
            long ms = (System.nanoTime() - t0) / 1_000_000;
            System.setOut(saved);
            String text = out.toString(StandardCharsets.UTF_8);
            assertEquals(0, rc, text);
            assertTrue(ms >= 1000, "ran for the duration: " + ms + " ms");
            assertTrue(text.contains("switch ready: s1"), text);
            assertTrue(text.contains("impairment: switch stage"), text);
            assertTrue(text.contains("port 0 p0 -> h1: rx ") && text.contains("port 1 p1 -> h2: rx "), text);
            assertTrue(text.contains("drops:") && text.contains("pfc tx") && text.contains("queue high-water"), text);
        } finally {
            System.setOut(saved);
        }
    }
}
