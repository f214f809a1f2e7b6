package org.urdma.switchemu.deploy;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.urdma.switchemu.capture.SwitchCapture;
import org.urdma.switchemu.core.PortCounters;
import org.urdma.transport.counters.CountersFile;
import org.urdma.switchemu.stat.StatReport;
import org.urdma.switchemu.topo.Topology;
import org.urdma.switchemu.topo.TopologyParser;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The in-process run: default and given flows, PFC in an incast, live counters that change, pcap per port. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class InProcessRunTest {
    @TempDir
    Path dir;

    private static Topology incast() throws Exception {
        return TopologyParser.parse(Path.of("..", "examples", "topologies", "incast.yaml"));
    }

    @Test
    void defaultFlowsSendEveryHostToTheLastAtTheLowestLosslessPriority() throws Exception {
        Topology t = incast();
        List<Topology.Flow> flows = InProcessRun.flows(t);
        assertEquals(List.of("h1->h3", "h2->h3"), flows.stream().map(f -> f.from() + "->" + f.to()).toList());
        assertEquals(3, InProcessRun.defaultPriority(t));
        assertEquals(600_000_000L, InProcessRun.defaultRate(t, "h3", 0.6));
        Topology fast = TopologyParser.parse(Path.of("..", "examples", "topologies", "two-switches.yaml"));
        assertEquals(600_000_000L, InProcessRun.defaultRate(fast, "h2", 0.6), "a 10G sink: 60 % of at most 1 Gbit/s");
    }

    @Test
    void theFilesFlowsAreUsedWithTheirRateSizeAndPriority() {
        Topology t = TopologyParser.parse("""
            hosts: [{name: a}, {name: b}, {name: c}]
            switches: [{name: s1}]
            links:
              - {endpoints: [a, s1], rate: 10G}
              - {endpoints: [b, s1], rate: 10G}
              - {endpoints: [c, s1], rate: 10G}
            flows:
              - {from: c, to: a, rate: 100M, size: 512, priority: 5}
            """, "f.yaml");
        InProcessRun run = new InProcessRun(t, new InProcessRun.Options(20_000_000L, 1, 0.6, 1024, null, null));
        assertEquals(1, run.flows().size());
        InProcessRun.RunFlow f = run.flows().get(0);
        assertEquals("c", f.from());
        assertEquals(100_000_000L, f.rateBps());
        assertEquals(512, f.flow().frameBytes());
        assertEquals(5, f.flow().priority());
        run.run();
        // 20 ms at 100 Mbit/s of 536 B on the wire: about 466 frames
        PortCounters toA = run.network().switches.get("s1").core().counters(0);
        assertTrue(toA.txFrames > 400 && toA.txFrames < 500, "frames to a: " + toA.txFrames);
        // a never sends, so its MAC is never learned: every frame is flooded to b as well
        assertEquals(toA.txFrames, run.network().switches.get("s1").core().counters(1).txFrames);
    }

    @Test
    void anIncastPausesTheSendersAndTheCountersChangeLiveInTheCountersFile() throws Exception {
        Path counters = dir.resolve("t-in.counters");
        InProcessRun run = new InProcessRun(incast(), new InProcessRun.Options(1_500_000_000L, 1, 0.6, 1024, dir, counters));
        List<Long> seen = new ArrayList<>();
        Thread reader = new Thread(() -> {
            long end = System.nanoTime() + 20_000_000_000L;
            while (seen.size() < 2 && System.nanoTime() < end) {
                try {
                    if (Files.exists(counters)) {
                        try (CountersFile.Snapshot s = CountersFile.read(counters)) {
                            Long v = StatReport.values(s.reader()).get("s1 p2 tx-frames");
                            if (v != null && v > 0 && (seen.isEmpty() || v > seen.get(seen.size() - 1))
                                && s.state() == CountersFile.State.RUNNING) {
                                seen.add(v);
                            }
                        }
                    }
                    Thread.sleep(150);
                } catch (Exception e) {
                    // the file is being made: try again
                }
            }
        });
        reader.start();
        run.run();
        reader.join();
        assertTrue(seen.size() >= 2, "tx frames towards h3 grew while the run went on: " + seen);
        String report = run.report(null);
        assertTrue(report.contains("port 2 p2 -> h3: rx 0 frames"), report);
        PortCounters p0 = run.network().switches.get("s1").core().counters(0);
        assertTrue(p0.pfcTx[3] > 0, "1.2 Gbit/s into a 1 Gbit/s link: PFC on priority 3 towards h1: " + report);
        assertEquals(0, p0.totalDrops() + run.network().switches.get("s1").core().counters(1).totalDrops(), report);
        try (CountersFile.Snapshot s = CountersFile.read(counters)) {
            assertEquals(CountersFile.State.STOPPED, s.state());
            assertEquals(run.network().switches.get("s1").core().counters(2).txFrames,
                StatReport.values(s.reader()).get("s1 p2 tx-frames"), "the last values are published at the end");
        }
        for (int p = 0; p < 3; p++) {
            assertTrue(Files.size(SwitchCapture.file(dir, "s1", p)) > 24, "pcap of port " + p);
        }
    }

    @Test
    void aSeededRunIsReproducibleWhateverTheWallClockDid() throws Exception {
        Topology t = TopologyParser.parse(Path.of("..", "examples", "topologies", "two-hosts.yaml"));
        String[] counters = new String[2];
        for (int i = 0; i < 2; i++) {
            InProcessRun run = new InProcessRun(t, new InProcessRun.Options(100_000_000L, 7, 0.6, 1024, null, null));
            run.run();
            counters[i] = run.network().switches.get("s1").core().counters(1) + " "
                + run.network().switches.get("s1").egressImpairment(1).lost();
        }
        assertEquals(counters[0], counters[1]);
        assertTrue(counters[0].contains("tx="), counters[0]);
    }
}
