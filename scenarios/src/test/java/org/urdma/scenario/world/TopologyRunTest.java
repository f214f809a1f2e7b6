package org.urdma.scenario.world;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.urdma.switchemu.topo.Topology;
import org.urdma.switchemu.topo.TopologyParser;

/** A topology file's urdma workloads run in the simulated world: verified memory, and the same bytes for one seed. */
class TopologyRunTest {
    private static Topology example() throws Exception {
        return TopologyParser.parse(Path.of("..", "examples", "topologies", "dcqcn-world.yaml"));
    }

    @Test
    void theExampleWorldRunsEveryWorkloadToVerifiedMemory() throws Exception {
        ResultTable t = TopologyRun.run(example(), 1, 1_000_000_000L);
        System.out.print(t.text());
        assertTrue(t.title().contains("all workloads done"), t.text());
        assertEquals(3, t.rows().size());
        for (int i = 0; i < 3; i++) {
            assertEquals("yes", t.cell(i, "verified"), t.text());
            assertEquals("0", t.cell(i, "errors"), t.text());
        }
        assertEquals("200", t.cell(2, "messages"), "the closed loop did its 200 READs");
        double a = Double.parseDouble(t.cell(0, "goodput_gbps"));
        double b = Double.parseDouble(t.cell(1, "goodput_gbps"));
        assertTrue(a + b > 6 && a < 9.5 && b < 9.5, "two DCQCN writers share h3's 10 Gbit/s link: " + t.text());
    }

    @Test
    void oneFileAndSeedGiveByteIdenticalResultsAndAnotherSeedDoesNot() throws Exception {
        String first = TopologyRun.run(example(), 7, 1_000_000_000L).csv() + TopologyRun.run(example(), 7, 1_000_000_000L).text();
        String again = TopologyRun.run(example(), 7, 1_000_000_000L).csv() + TopologyRun.run(example(), 7, 1_000_000_000L).text();
        assertEquals(first, again);
        String other = TopologyRun.run(example(), 8, 1_000_000_000L).text();
        assertNotEquals(TopologyRun.run(example(), 7, 1_000_000_000L).text().replace("seed 7", "seed 8"), other,
                "the seed reaches the world (PSNs, RED marking, data)");
    }

    /** One 16-packet WRITE of 16 KiB at path MTU 1024 from h1 to h2, the link of h2 dropping {@code psns} (or none). */
    private static String oneWrite(String psns) {
        return """
            hosts:
              - {name: h1, mac: "02:00:00:00:00:01"}
              - {name: h2, mac: "02:00:00:00:00:02"}
            switches:
              - name: s1
            links:
              - {endpoints: [h1, s1], rate: 10G, delay: 1us}
              - {endpoints: [s1, h2], rate: 10G, delay: 1us%s}
            workloads:
              - {name: w, kind: write-bw, from: h1, to: h2, size: 16KB, qp: rc, reliability: go-back-n, cc: none,
                 depth: 1, mtu: 1024, start: 0, messages: 4}
            """.formatted(psns == null ? "" : ", dropPsns: \"" + psns + "\"");
    }

    @Test
    void aFilesPsnDropPatternDropsExactlyThoseFirstTransmissionsAndGoBackNResendsFromEach() {
        ResultTable clean = TopologyRun.run(TopologyParser.parse(oneWrite(null), "w.yaml"), 3, 1_000_000_000L);
        assertEquals("0", clean.cell(0, "retransmitted"), clean.text());
        ResultTable t = TopologyRun.run(TopologyParser.parse(oneWrite("2,4-5,20"), "w.yaml"), 3, 1_000_000_000L);
        assertEquals("yes", t.cell(0, "verified"), t.text());
        // message 0: 2, 4 and 5 lost, NAK at 3, go back to 2: 14 packets again; message 1: 20 lost, go back: 12 again
        assertEquals("26", t.cell(0, "retransmitted"), t.text());
        assertTrue(t.text().contains("0 frames lost to impairment, 4 to PSN drop patterns"), t.text());
    }
}
