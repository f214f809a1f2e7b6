package org.urdma.switchemu.topo;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** A topology file's {@code workloads:} (urdma devices on its hosts) and host priorities; bad ones name their line. */
class WorkloadParsingTest {
    private static final String WORLD = """
            hosts:
              - {name: h1, priority: 3}
              - {name: h2}
            switches:
              - {name: s1}
            links:
              - {endpoints: [h1, s1], rate: 10G}
              - {endpoints: [h2, s1], rate: 10G, mtu: 4200}
            workloads:
            """;

    private static Topology parse(String workloads) {
        return TopologyParser.parse(WORLD + workloads, "w.yaml");
    }

    private static void rejected(String workloads, int line, String words) {
        TopologyException e = assertThrows(TopologyException.class, () -> parse(workloads));
        assertEquals(line, e.line(), e.getMessage());
        assertTrue(e.getMessage().contains(words), e.getMessage());
    }

    @Test
    void readsWorkloadsWithTheirDefaults() {
        Topology t = parse("""
                  - {name: a, kind: write-bw, from: h1, to: h2, size: 64KB, qp: uc, cc: "dcqcn:line=10g", depth: 8, start: 1ms, stop: 5ms}
                  - {kind: READ-BW, from: h2, to: h1, messages: 10}
                """);
        assertEquals(3, t.hosts().get("h1").priority());
        assertEquals(0, t.hosts().get("h2").priority());
        Topology.Workload a = t.workloads().get(0);
        assertEquals(new Topology.Workload("a", "write-bw", "h1", "h2", 64_000, "uc", "go-back-n", "dcqcn:line=10g", 8,
                1024, 1_000_000, 5_000_000, 0, 10), a);
        Topology.Workload b = t.workloads().get(1);
        assertEquals("h2->h1#2", b.name());
        assertEquals("read-bw", b.kind());
        assertEquals("rc", b.qp());
        assertEquals("none", b.cc());
        assertEquals(10, b.messages());
        assertEquals(Long.MAX_VALUE, b.stopNs());
    }

    @Test
    void badWorkloadsNameTheirLine() {
        rejected("  - {kind: write-bw, from: h1, to: h2}\n", 10, "needs stop");
        rejected("  - {kind: atomic-bw, from: h1, to: h2, messages: 1}\n", 10, "kind: expected write-bw");
        rejected("  - {kind: write-bw, from: h1, to: h9, messages: 1}\n", 10, "'h9' is not a host");
        rejected("  - {kind: write-bw, from: h1, to: h2, messages: 1}\n  - {kind: read-bw, from: h2, to: h1, qp: uc, messages: 1}\n",
                11, "uc has no READ");
        rejected("  - {kind: write-bw, from: h1, to: h2, messages: 1, cc: \"dcqcn:bogus=1\"}\n", 10, "bogus");
        rejected("  - {kind: write-bw, from: h1, to: h2, messages: 1, reliability: sack-ish}\n", 10, "reliability");
        rejected("  - {kind: write-bw, from: h2, to: h1, messages: 1, mtu: 2048}\n", 10, "link MTU of 2108");
        rejected("  - {kind: write-bw, from: h1, to: h2, messages: 1, mtu: 1000}\n", 10, "256, 512");
        rejected("  - {kind: write-bw, from: h1, to: h2, start: 5ms, stop: 1ms}\n", 10, "stop: must be after start");
        rejected("  - {kind: write-bw, from: h1, to: h2, messages: 1, speed: 3}\n", 10, "unknown key 'speed'");
        rejected("  - {name: x, kind: write-bw, from: h1, to: h2, messages: 1}\n  - {name: x, kind: send-bw, from: h1, to: h2, messages: 1}\n",
                11, "already used on line 10");
    }
}
