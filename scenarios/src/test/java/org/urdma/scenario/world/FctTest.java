package org.urdma.scenario.world;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.urdma.switchemu.topo.FabricGenerator;
import org.urdma.switchemu.topo.FabricSettings;
import org.urdma.switchemu.topo.Topology;
import org.urdma.switchemu.topo.TopologyParser;
import org.urdma.switchemu.world.fct.FctRecords;
import org.urdma.switchemu.world.fct.FlowGenerator;
import org.urdma.switchemu.world.fct.FlowSizeCdf;
import org.urdma.switchemu.world.fct.Flows;

class FctTest {
    private static final long G100 = 100_000_000_000L;

    static Topology leafSpine(int leaves, int spines, int hostsPerLeaf) {
        String yaml = FabricGenerator.leafSpine(new FabricGenerator.LeafSpine(leaves, spines, hostsPerLeaf, G100, G100, 1_000, 1_000),
                FabricSettings.hpcc(G100).withBuffer(4_000_000));
        return TopologyParser.parse(yaml, "leaf-spine");
    }

    static Topology fatTreeK4() {
        return TopologyParser.parse(FabricGenerator.fatTree(FabricGenerator.FatTree.ofK(4, G100, G100, 1_000),
                FabricSettings.hpcc(G100).withBuffer(2_000_000)), "k4");
    }

    @Test
    void aSingleFlowOnAnIdlePathHasSlowdownOne() {
        Topology t = leafSpine(2, 2, 2);
        for (long size : new long[] {1, 17, 1_000, 1_025, 64_000, 1_000_000}) {
            Flows f = new Flows().add(0, 3, 3, 100, size, 10_000);
            Fct.Run r = Fct.run(t, f, "none", 1, 1024, false, 0);
            assertEquals(1, r.completed(), "size " + size);
            assertEquals(1.0, r.slowdown()[0], 0.01, "size " + size + ": " + r.fctText());
        }
        Fct.Run real = Fct.run(t, new Flows().add(0, 3, 3, 100, 1_025, 10_000), "none", 1, 1024, true, 0);
        assertEquals(1.0, real.slowdown()[0], 0.01, "with real bytes: " + real.fctText());
    }

    @Test
    void anIncastOfEqualFlowsWithPfcAndNoCcFinishesAtNTimesItsBytesOverTheLineRate() {
        Topology t = leafSpine(2, 2, 9);
        int n = 8;
        long size = 1_000_000;
        Flows f = new Flows();
        for (int s = 1; s <= n; s++) f.add(s, 0, 3, 100, size, 10_000);
        Fct.Run r = Fct.run(t, f, "none", 1, 1024, false, 0);
        assertEquals(n, r.completed());
        assertEquals(0, r.drops(), "lossless: PFC, no drops");
        assertTrue(r.pfcFrames() > 0, "8 MB into a 4 MB buffer needs PFC");
        FctRecords rec = new FctRecords(t, new ArrayList<>(t.hosts().keySet()), 1024);
        double wireNs = rec.wireBytes(size) * 8e9 / G100;
        double expected = n * wireNs + (rec.idealNs(1, 0, size) - wireNs);
        double last = 0;
        for (int i = 0; i < n; i++) last = Math.max(last, r.slowdown()[i] * rec.idealNs(f.src(i), 0, size));
        assertEquals(expected, last, expected * 0.02, "the last of " + n + " flows of " + size + " bytes");
    }

    /** 8:1 from the other leaf (three switches: their stamps drive HPCC) against no CC: far fewer pauses, a smaller queue. */
    @Test
    void hpccTakesAnIncastAcrossARoutedFabricWithFewerPausesAndLessQueueThanNoCc() {
        Topology t = leafSpine(2, 2, 9);
        Flows f = new Flows();
        for (int s = 9; s < 17; s++) f.add(s, 0, 3, 100, 1_000_000, 10_000);
        Fct.Run none = Fct.run(t, f, "none", 1, 1024, false, 0);
        Fct.Run hpcc = Fct.run(t, f, "hpcc", 1, 1024, false, 0);
        String queues = "none:\n" + none.telemetry().get("queues.csv") + "hpcc:\n" + hpcc.telemetry().get("queues.csv");
        assertEquals(8, hpcc.completed(), hpcc.fctText());
        assertEquals(0, hpcc.drops());
        assertTrue(none.pfcFrames() > 0, "without CC the incast pauses");
        assertTrue(hpcc.pfcFrames() * 4 < none.pfcFrames(), "HPCC pauses far less (its first round trip's windows only): "
                + hpcc.pfcFrames() + " PFC frames against " + none.pfcFrames());
        assertTrue(fabricQueue(hpcc) < fabricQueue(none) / 2, "less queue in the fabric: " + queues);
    }

    /** The sum of every queue's mean bytes in the run's queues.csv: what the fabric holds on average. */
    private static double fabricQueue(Fct.Run r) {
        double sum = 0;
        String[] lines = r.telemetry().get("queues.csv").split("\n");
        for (int i = 1; i < lines.length; i++) sum += Double.parseDouble(lines[i].split(",")[5]);
        return sum;
    }

    @Test
    void everyHostPairOfAK4FatTreeReachesEveryOther() {
        Topology t = fatTreeK4();
        Flows f = new Flows();
        for (int a = 0; a < 16; a++) {
            for (int b = 0; b < 16; b++) {
                if (a != b) f.add(a, b, 3, 100, 2_000, 10_000 + 100L * (a * 16 + b));
            }
        }
        Fct.Run r = Fct.run(t, f, "none", 1, 1024, false, 0);
        assertEquals(240, r.completed(), r.fctText());
        assertEquals(0, r.failed());
        assertEquals(0, r.drops());
    }

    @Test
    void idleQpPairsTradePartnersSoAFlowToEveryHostPairDoesNotBringUpAPairPerHostPair() {
        Topology t = fatTreeK4();
        Flows f = new Flows();
        // one flow at a time, 20 us apart: each host pair once, 240 pairs touched
        for (int a = 0; a < 16; a++) {
            for (int b = 0; b < 16; b++) {
                if (a != b) f.add(a, b, 3, 100, 2_000, 10_000 + 20_000L * f.count());
            }
        }
        Fct.Run r = Fct.run(t, f, "dcqcn", 1, 1024, false, 0);
        assertEquals(240, r.completed(), r.fctText());
        assertEquals(0, r.failed());
        // a new pair only when the source has no idle requester or the destination no idle responder: at most a
        // couple per host, not one per host pair
        assertTrue(r.queuePairs() <= 32, "QP pairs brought up: " + r.queuePairs());
        for (int i = 0; i < r.slowdown().length; i++) {
            assertEquals(1.0, r.slowdown()[i], 0.01, "flow " + i + " alone on its path, on a reused QP\n" + r.fctText());
        }
    }

    @Test
    void theSameInputsAndSeedGiveByteIdenticalFctFiles() {
        Topology t = fatTreeK4();
        Flows f = FlowGenerator.generate(new FlowGenerator.Options(FlowSizeCdf.shipped("websearch"), 0.5, G100, 10_000, 200_000, 4,
                20_000, 0.2, 3), 16);
        Fct.Run a = Fct.run(t, f, "dcqcn", 5, 1024, false, 0);
        Fct.Run b = Fct.run(t, f, "dcqcn", 5, 1024, false, 0);
        assertTrue(a.completed() > 20, "flows completed: " + a.completed());
        assertEquals(a.fctText(), b.fctText());
        assertEquals(a.csv(), b.csv());
        List<Fct.Run> runs = List.of(a);
        assertEquals(Fct.table("t", runs, 5).text(), Fct.table("t", List.of(b), 5).text());
    }
}
