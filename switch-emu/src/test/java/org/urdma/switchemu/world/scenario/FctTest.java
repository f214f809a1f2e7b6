package org.urdma.switchemu.world.scenario;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;
import org.urdma.switchemu.topo.FabricGenerator;
import org.urdma.switchemu.topo.FabricSettings;
import org.urdma.switchemu.topo.Topology;
import org.urdma.switchemu.topo.TopologyParser;
import org.urdma.switchemu.world.fct.Flows;

class FctTest {
    private static final long G100 = 100_000_000_000L;

    static Topology leafSpine(int leaves, int spines, int hostsPerLeaf) {
        String yaml = FabricGenerator.leafSpine(new FabricGenerator.LeafSpine(leaves, spines, hostsPerLeaf, G100, G100, 1_000, 1_000),
                FabricSettings.hpcc(G100).withBuffer(4_000_000));
        return TopologyParser.parse(yaml, "leaf-spine");
    }

    @Test
    void aSingleFlowOnAnIdlePathHasSlowdownOne() {
        Topology t = leafSpine(2, 2, 2);
        for (long size : new long[] {1, 2, 8, 15, 16, 17, 1_026, 1_028, 1_032, 1_040, 1_041, 1_048, 1_049}) {
            Flows f = new Flows().add(0, 3, 3, 100, size, 10_000);
            Fct.Run r = Fct.run(t, f, "none", 1, 1024, false, 0);
            Fct.Run real = Fct.run(t, f, "none", 1, 1024, true, 0);
            System.out.println("real " + size + " " + real.completed() + " " + real.fctText() + " described " + r.completed() + " failed " + r.failed() + " " + r.events());
            assertEquals(1, r.completed(), "size " + size);
            System.out.println(size + " " + r.slowdown()[0] + " " + r.fctText());
            assertEquals(1.0, r.slowdown()[0], 0.02, "size " + size + ": " + r.fctText());
        }
    }
}
