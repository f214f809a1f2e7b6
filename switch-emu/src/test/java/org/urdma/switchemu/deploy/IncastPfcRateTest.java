package org.urdma.switchemu.deploy;

import org.junit.jupiter.api.Test;
import org.urdma.switchemu.core.PortCounters;
import org.urdma.switchemu.topo.TopologyParser;

import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** examples/topologies/incast.yaml with the default MMU profile: PFC holds the incast without a PFC storm. */
class IncastPfcRateTest {
    @Test
    void theIncastExamplePausesItsSendersWithoutAnXoffXonPairEveryFewFrames() throws Exception {
        long duration = 300_000_000L;
        InProcessRun run = new InProcessRun(TopologyParser.parse(Path.of("..", "examples", "topologies", "incast.yaml")),
            new InProcessRun.Options(duration, 1, 0.6, 1024, null, null));
        run.run();
        String report = run.report(null);
        long pfc = 0;
        long data = 0;
        for (int p = 0; p < 2; p++) {
            PortCounters c = run.network().switches.get("s1").core().counters(p);
            pfc += c.pfcFramesTx;
            data += c.rxFrames;
            assertEquals(0, c.totalDrops(), report);
        }
        double perPortPerSecond = pfc / 2.0 / (duration / 1e9);
        System.out.printf("incast.yaml: %d PFC frames for %d data frames, %.0f PFC frames/s per port%n", pfc, data,
            perPortPerSecond);
        assertTrue(pfc > 0, "1.2 Gbit/s into 1 Gbit/s is paused: " + report);
        assertTrue(report.contains("pfc frames tx: "), report);
        // was (α = 1, resume offset 3000 B): an XOFF/XON pair every ~2 data frames, ~58 k PFC frames/s per port;
        // α = 1/8 with a 2496 B offset: a pair every ~5 (~23 k/s): the drain needed before XON is
        // 2·offset/(1+2α) with two paused queues, and a sender resumed at 10 Gbit/s refills it at once
        assertTrue(data > 2 * pfc, pfc + " PFC frames for " + data + " data frames\n" + report);
        assertTrue(perPortPerSecond < 40_000, perPortPerSecond + " PFC frames/s per port");
    }
}
