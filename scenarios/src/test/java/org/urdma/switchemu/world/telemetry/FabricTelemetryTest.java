package org.urdma.switchemu.world.telemetry;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.urdma.switchemu.topo.Topology;
import org.urdma.switchemu.topo.TopologyParser;
import org.urdma.scenario.world.TopologyRun;

/**
 * The telemetry files of a known small run: a 2:1 incast of WRITEs at 10 Gbit/s into a small lossless buffer (PFC on
 * priority 3, RED marking from 5 KB) with no rate control, so the switch pauses the senders; a fourth host that sends
 * nothing and gets nothing.
 */
class FabricTelemetryTest {
    static final String WORLD = """
        hosts:
          - {name: h1, mac: "02:00:00:00:00:01", ip: 10.0.0.1/24, priority: 3}
          - {name: h2, mac: "02:00:00:00:00:02", ip: 10.0.0.2/24, priority: 3}
          - {name: h3, mac: "02:00:00:00:00:03", ip: 10.0.0.3/24, priority: 3}
          - {name: idle, mac: "02:00:00:00:00:04", ip: 10.0.0.4/24, priority: 3}
        switches:
          - name: s1
            buffer: 300KB
            reserve: 1500
            headroom: 50KB
            classify: default
            defaultPriority: 3
            pfc: [3]
            ecn: {priorities: [3], kmin: 5KB, kmax: 200KB, pmax: 10%}
        links:
          - {endpoints: [h1, s1], rate: 10G, delay: 1us}
          - {endpoints: [h2, s1], rate: 10G, delay: 1us}
          - {endpoints: [s1, h3], rate: 10G, delay: 1us}
          - {endpoints: [idle, s1], rate: 10G, delay: 1us}
        workloads:
          - {name: w1, kind: write-bw, from: h1, to: h3, size: 64KB, depth: 16, cc: none, start: 0ms, stop: 2ms}
          - {name: w2, kind: write-bw, from: h2, to: h3, size: 64KB, depth: 16, cc: none, start: 0ms, stop: 2ms}
        """;

    static Map<String, String> files(FabricTelemetry.Options o) {
        Topology t = TopologyParser.parse(WORLD, "telemetry.yaml");
        return TopologyRun.run(t, 1, 3_000_000, o).telemetry();
    }

    static List<String[]> rows(String csv) {
        List<String[]> out = new ArrayList<>();
        String[] lines = csv.split("\n");
        for (int i = 1; i < lines.length; i++) out.add(lines[i].split(",", -1));
        return out;
    }

    @Test
    void aPausedIncastLogsPausesWithDurationsAndTheIdlePortHasNoUtilisation() {
        Map<String, String> f = files(new FabricTelemetry.Options(1_000, true));
        List<String[]> pauses = rows(f.get("pfc.csv"));
        assertTrue(!pauses.isEmpty(), "the switch paused: " + f.get("pfc.csv"));
        long ended = pauses.stream().filter(p -> !p[5].isEmpty()).count();
        assertTrue(ended > 0, f.get("pfc.csv"));
        for (String[] p : pauses) {
            assertEquals("s1", p[0]);
            assertEquals("3", p[2], "the lossless priority");
            assertTrue(p[1].equals("0") || p[1].equals("1"), "a sender's port pauses: " + String.join(",", p));
            if (!p[5].isEmpty()) assertTrue(Long.parseLong(p[5]) > 0, "a pause lasts: " + String.join(",", p));
        }
        String text = f.get("pfc.txt");
        assertTrue(text.lines().anyMatch(l -> l.endsWith(" 3 1")), text);
        assertTrue(text.lines().anyMatch(l -> l.endsWith(" 3 0")), text);

        // ports in link order: h1 0, h2 1, h3 2, idle 3
        List<String[]> links = rows(f.get("links.csv"));
        assertEquals(4, links.size());
        String[] idle = links.get(3);
        assertEquals("0.0000", idle[7], "nothing leaves towards the idle host");
        assertEquals("0.0000", idle[8], "nothing comes from it");
        assertEquals("0", idle[3]);
        double bottleneck = Double.parseDouble(links.get(2)[7]);
        assertTrue(bottleneck > 0.5 && bottleneck <= 1.0, "the receiver's port is the busy one: " + f.get("links.csv"));

        List<String[]> queues = rows(f.get("queues.csv"));
        String[] q = queues.stream().filter(r -> r[1].equals("2") && r[2].equals("3")).findFirst().orElseThrow();
        assertTrue(Long.parseLong(q[9]) > 5_000, "the bottleneck queue grew: " + f.get("queues.csv"));
        assertTrue(queues.stream().noneMatch(r -> r[1].equals("3")), "the idle port never queued");
        assertTrue(f.get("queue_series.csv").lines().skip(1).anyMatch(l -> l.contains(",s1,2,3,")), "the series has it");

        List<String[]> ecn = rows(f.get("flows_ecn.csv"));
        assertEquals(2, ecn.size());
        for (String[] e : ecn) {
            assertTrue(Long.parseLong(e[3]) > 0, "the queue above kmin marked " + e[0] + ": " + f.get("flows_ecn.csv"));
            assertTrue(Long.parseLong(e[4]) > 0, "its receiver answered with CNPs");
        }
    }

    @Test
    void theSameSeedGivesTheSameFilesAndWatchingChangesNothingOfTheRun() {
        FabricTelemetry.Options o = new FabricTelemetry.Options(5_000, true);
        assertEquals(files(o), files(o));
        Topology t = TopologyParser.parse(WORLD, "telemetry.yaml");
        String watchedRows = rowsOf(TopologyRun.run(t, 1, 3_000_000, o).table().text());
        String lessWatched = rowsOf(TopologyRun.run(t, 1, 3_000_000, new FabricTelemetry.Options(333_000, false)).table().text());
        assertEquals(lessWatched, watchedRows, "sampling reads the fabric and changes nothing in it");
    }

    /** The table without its last note (which counts events, sampling ones too). */
    private static String rowsOf(String table) {
        return table.substring(0, table.lastIndexOf('\n', table.lastIndexOf(" events, ")));
    }
}
