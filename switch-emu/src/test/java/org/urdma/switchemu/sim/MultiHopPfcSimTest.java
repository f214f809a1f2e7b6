package org.urdma.switchemu.sim;

import org.junit.jupiter.api.Test;
import org.urdma.switchemu.core.SwitchCore;
import org.urdma.switchemu.topo.Topology;
import org.urdma.switchemu.topo.TopologyParser;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Back-pressure propagates hop by hop: h1, h2 → s1 → s2 → h3 with the last link slowest. */
class MultiHopPfcSimTest {
    private static final String TOPO = """
        hosts:
          - {name: h1}
          - {name: h2}
          - {name: h3}
        switches:
          - {name: s1, buffer: 300KB, reserve: 1500, alpha: 1, headroom: 30KB, pfc: [3]}
          - {name: s2, buffer: 300KB, reserve: 1500, alpha: 1, headroom: 30KB, pfc: [3]}
        links:
          - {endpoints: [h1, s1], rate: 10G, delay: 1us}
          - {endpoints: [h2, s1], rate: 10G, delay: 1us}
          - {endpoints: [s1, s2], rate: 10G, delay: 2us}
          - {endpoints: [s2, h3], rate: 2.5G, delay: 1us}
        """;

    @Test
    void theCongestedLastHopPausesTheFirstSwitchWhichPausesTheSenders() {
        Topology t = TopologyParser.parse(TOPO, "chain.yaml");
        Simulator sim = new Simulator();
        SimTopology net = new SimTopology(t, sim, 9);
        long h3 = t.hosts().get("h3").mac();
        net.hosts.get("h3").send(new Flow(0, t.hosts().get("h1").mac(), 3, 64, 1));
        sim.runToIdle(1_000_000);
        net.hosts.get("h1").send(new Flow(1, h3, 3, 1000, 4000).start(2_000_000));
        net.hosts.get("h2").send(new Flow(2, h3, 3, 1000, 4000).start(2_000_000));
        sim.runToIdle(10_000_000_000L);

        SwitchCore s1 = net.switches.get("s1").core();
        SwitchCore s2 = net.switches.get("s2").core();
        // s1: p0 h1, p1 h2, p2 s2; s2: p0 s1, p1 h3
        assertTrue(s2.counters(0).pfcTx[3] > 0, "s2 pauses s1");
        assertEquals(s2.counters(0).pfcTx[3], s1.counters(2).pfcRx[3], "every PFC s2 sent reached s1");
        assertTrue(s1.counters(0).pfcTx[3] > 0 && s1.counters(1).pfcTx[3] > 0, "s1 pauses both senders");
        assertTrue(net.hosts.get("h1").pfcRx[3] > 0);
        for (SwitchCore s : new SwitchCore[]{s1, s2}) {
            for (int p = 0; p < s.portCount(); p++) {
                assertEquals(0, s.counters(p).totalDrops(), "lossless end to end");
            }
            assertEquals(0, s.bufferUsed());
        }
        assertEquals(4000, net.hosts.get("h3").stats(1).unique);
        assertEquals(4000, net.hosts.get("h3").stats(2).unique);
        // the bottleneck paces the chain and PFC keeps it busy: 8000 frames at 2.5 Gbit/s, back to back
        long ser = ((1000 + 24) * 8L * 1_000_000_000L) / 2_500_000_000L;
        FlowStats a = net.hosts.get("h3").stats(1);
        FlowStats b = net.hosts.get("h3").stats(2);
        long busy = Math.max(a.lastArrivalNs, b.lastArrivalNs) - Math.min(a.firstArrivalNs, b.firstArrivalNs);
        assertTrue(busy >= 7_999 * ser && busy < 1.01 * 8_000 * ser, "took " + busy + " ns for " + 8_000 * ser + " of work");
    }
}
