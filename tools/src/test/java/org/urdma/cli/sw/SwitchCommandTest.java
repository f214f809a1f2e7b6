package org.urdma.cli.sw;

import org.junit.jupiter.api.Tag;
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
    @Tag("root")
    @Test
    void runsForTheDurationAndPrintsPerPortCounters(@org.junit.jupiter.api.io.TempDir Path dir) throws Exception {
        RootAssumptions.assumeRoot();
        Path file = Path.of("..", "examples", "topologies", "two-hosts.yaml");
        PrintStream saved = System.out;
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (org.urdma.nativeio.netns.Topology net = org.urdma.nativeio.netns.Topology.create()) {
            NetworkBuilder.Network n = NetworkBuilder.build(TopologyParser.parse(file), net, ns -> { });
            System.setOut(new PrintStream(out, true, StandardCharsets.UTF_8));
            long t0 = System.nanoTime();
            Path counters = dir.resolve("s1.counters");
            int rc = UrdmaCli.commandLine().execute("switch", file.toString(), "--netns", n.namespace("s1"),
                "--duration", "1s", "--counters", counters.toString());
            long ms = (System.nanoTime() - t0) / 1_000_000;
            System.setOut(saved);
            String text = out.toString(StandardCharsets.UTF_8);
            assertEquals(0, rc, text);
            assertTrue(ms >= 1000, "ran for the duration: " + ms + " ms");
            assertTrue(text.contains("switch ready: s1"), text);
            assertTrue(text.contains("impairment: switch stage"), text);
            assertTrue(text.contains("port 0 p0 -> h1: rx ") && text.contains("port 1 p1 -> h2: rx "), text);
            assertTrue(text.contains("drops:") && text.contains("pfc tx") && text.contains("queue high-water"), text);
            assertTrue(text.contains("live counters: " + counters), text);
            try (org.urdma.transport.counters.CountersFile.Snapshot s = org.urdma.transport.counters.CountersFile.read(counters)) {
                assertEquals(org.urdma.transport.counters.CountersFile.State.STOPPED, s.state());
                java.util.Map<String, Long> values = org.urdma.switchemu.stat.StatReport.values(s.reader());
                assertTrue(values.containsKey("s1 p1 tx-frames") && values.containsKey("s1 p0 pfc-rx prio 3"), values.keySet()
                    .toString());
            }
        } finally {
            System.setOut(saved);
        }
    }

    @Test
    void inProcessRunsTheTopologyWithTrafficAndPrintsTheSameCountersAndPcaps(@org.junit.jupiter.api.io.TempDir Path dir)
        throws Exception {
        Path file = Path.of("..", "examples", "topologies", "incast.yaml");
        PrintStream saved = System.out;
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try {
            System.setOut(new PrintStream(out, true, StandardCharsets.UTF_8));
            int rc = UrdmaCli.commandLine().execute("switch", file.toString(), "--in-process", "--duration", "300ms",
                "--pcap", dir.toString(), "--counters", dir.resolve("s1.counters").toString());
            System.setOut(saved);
            String text = out.toString(StandardCharsets.UTF_8);
            assertEquals(0, rc, text);
            assertTrue(text.startsWith("in-process: asked for (--in-process)"), text);
            assertTrue(text.contains("flow 0: h1 -> h3") && text.contains("flow 1: h2 -> h3"), text);
            assertTrue(text.contains("switch s1: 3 ports, ran 0.300 s (simulated, in-process)"), text);
            assertTrue(text.contains("port 0 p0 -> h1: rx ") && text.contains("port 2 p2 -> h3: rx 0 frames"), text);
            assertTrue(text.contains("drops:") && text.contains("pfc tx") && text.contains("queue high-water"), text);
            assertTrue(java.nio.file.Files.size(dir.resolve("s1-p2.pcap")) > 1000, "pcap per port");
            assertTrue(java.nio.file.Files.exists(dir.resolve("s1.counters")));
        } finally {
            System.setOut(saved);
        }
    }
}
