package org.urdma.switchemu.rt;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.urdma.nativeio.netns.Netns;
import org.urdma.nativeio.netns.junit.RootAssumptions;
import org.urdma.switchemu.topo.Topology;
import org.urdma.switchemu.topo.TopologyParser;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** topo up/down semantics: a kept fabric survives close; down removes everything the state file lists. */
class FabricTest {
    private static final String TOPO = """
        hosts:
          - {name: a, ip: 10.8.0.1/24}
          - {name: b, ip: 10.8.0.2/24}
        switches:
          - {name: s1}
          - {name: s2}
        links:
          - {endpoints: [a, s1], rate: 1G}
          - {endpoints: [s1, s2], rate: 1G}
          - {endpoints: [s2, b], rate: 1G}
        """;

    @TempDir
    Path dir;

    @Test
    void keptFabricSurvivesCloseAndDownRemovesItAll() throws Exception {
        RootAssumptions.assumeRoot();
        Topology topology = TopologyParser.parse(TOPO, "f.yaml");
        Path state = dir.resolve("state");
        Map<String, String> namespaces;
        try (Fabric fabric = Fabric.create(topology)) {
            namespaces = Map.copyOf(fabric.namespaces());
            assertEquals(4, namespaces.size());
            String links = Netns.exec(fabric.namespace("s1"), "ip", "-o", "link");
            assertTrue(links.contains("p0@") && links.contains("p1@"), links);
            assertTrue(Netns.exec(fabric.namespace("b"), "ip", "-o", "addr").contains("10.8.0.2/24"));
            fabric.keep();
            fabric.writeState(state, List.of());
        }
        for (String ns : namespaces.values()) {
            assertTrue(Netns.exists(ns), ns + " kept");
        }
        List<String> removed = Fabric.down(state);
        assertEquals(4, removed.size(), removed.toString());
        for (String ns : namespaces.values()) {
            assertFalse(Netns.exists(ns), ns + " removed");
        }
        assertFalse(Files.exists(state));
        assertEquals(List.of(), Fabric.down(state), "down again is a no-op");
    }
}
