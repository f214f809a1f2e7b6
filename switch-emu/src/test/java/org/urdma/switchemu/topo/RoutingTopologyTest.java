package org.urdma.switchemu.topo;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;
import org.urdma.switchemu.core.PortConfig;
import org.urdma.switchemu.core.SwitchConfig;

class RoutingTopologyTest {
    private static final String TRIANGLE = """
        hosts:
          - {name: h1}
          - {name: h2}
        switches:
          - {name: s1}
          - {name: s2}
          - {name: s3}
        links:
          - {endpoints: [h1, s1], rate: 10G}
          - {endpoints: [h2, s3], rate: 10G}
          - {endpoints: [s1, s2], rate: 10G}
          - {endpoints: [s2, s3], rate: 10G}
          - {endpoints: [s3, s1], rate: 10G}
        """;

    @Test
    void aLoopOfLearningSwitchesIsRefusedNamingTheLoop() {
        TopologyException e = assertThrows(TopologyException.class, () -> TopologyParser.parse(TRIANGLE, "t.yaml"));
        assertTrue(e.getMessage().contains("s1 -> s2 -> s3 -> s1"), e.getMessage());
        assertTrue(e.getMessage().contains("t.yaml:13"), e.getMessage());
    }

    @Test
    void theSameLoopRoutedParsesAndRoutesTheShortWay() {
        Topology t = TopologyParser.parse("routing: ecmp\n" + TRIANGLE, "t.yaml");
        // s1's ports: h1, s2, s3 (file order); h2 hangs off s3, one hop away: only port 2
        assertArrayEquals(new int[] {2}, t.routes().table("s1").ports(t.hosts().get("h2").mac()));
        assertArrayEquals(new int[] {0}, t.routes().table("s1").ports(t.hosts().get("h1").mac()));
        assertEquals(3, t.routes().hops("h1", "h2"));
    }

    @Test
    void aK4FatTreeKeepsEveryEqualCostNextHop() {
        Topology t = TopologyParser.parse(FabricGenerator.fatTree(FabricGenerator.FatTree.ofK(4, 100_000_000_000L, 100_000_000_000L,
                1_000), FabricSettings.hpcc(100_000_000_000L).withBuffer(2_000_000)), "k4");
        assertEquals(16, t.hosts().size());
        assertEquals(20, t.switches().size());
        long far = t.hosts().get("h15").mac();
        assertEquals(2, t.routes().table("tor0").ports(far).length, "a ToR has 2 uplinks towards another pod");
        assertEquals(2, t.routes().table("agg0").ports(far).length, "an agg has 2 cores");
        assertEquals(1, t.routes().table("core0").ports(far).length, "a core has one way down to the pod");
        assertEquals(6, t.routes().hops("h0", "h15"));
        assertEquals(2, t.routes().hops("h0", "h1"));
        for (String a : t.hosts().keySet()) {
            for (String b : t.hosts().keySet()) {
                if (!a.equals(b)) assertTrue(t.routes().path(a, b).size() >= 2, a + " -> " + b);
            }
        }
    }

    /** HPCC's fat.txt as its text: 320 hosts on 20 ToRs, 5 pods of 4 ToRs and 4 aggs, 16 cores; 100G hosts, 400G fabric. */
    static String fatTxt() {
        StringBuilder sb = new StringBuilder("376 56 480\n");
        for (int s = 320; s < 376; s++) sb.append(s).append(s < 375 ? " " : "\n");
        for (int h = 0; h < 320; h++) sb.append(h).append(' ').append(320 + h / 16).append(" 100Gbps 1000ns 0.000000\n");
        for (int tor = 0; tor < 20; tor++) {
            for (int a = 0; a < 4; a++) sb.append(320 + tor).append(' ').append(340 + tor / 4 * 4 + a).append(" 400Gbps 1000ns 0.000000\n");
        }
        for (int agg = 0; agg < 20; agg++) {
            for (int c = 0; c < 4; c++) sb.append(340 + agg).append(' ').append(360 + agg % 4 * 4 + c).append(" 400Gbps 1000ns 0.000000\n");
        }
        return sb.toString();
    }

    @Test
    void hpccsFatTxtImportsWithItsRatesAndHpccsSwitchSettings() {
        String text = fatTxt();
        assertTrue(HpccTopologyFile.looksLike(text));
        Topology t = HpccTopologyFile.read(text, "fat.txt");
        assertEquals(320, t.hosts().size());
        assertEquals(56, t.switches().size());
        assertEquals(480, t.links().size());
        assertEquals(100_000_000_000L, t.hostLink("h0").rateBps());
        SwitchConfig tor = t.switchConfig("s320");
        assertEquals(100_000_000_000L, tor.ports().get(0).rateBps());
        PortConfig uplink = tor.ports().get(16);
        assertEquals(400_000_000_000L, uplink.rateBps());
        assertEquals(4, t.routes().table("s320").ports(t.hosts().get("h319").mac()).length);
        assertEquals(6, t.routes().hops("h0", "h319"));
        // the generator writes the same fabric
        Topology g = TopologyParser.parse(FabricGenerator.fatTree(new FabricGenerator.FatTree(5, 4, 4, 16, 16, 100_000_000_000L,
                400_000_000_000L, 400_000_000_000L, 1_000, 1_000, 1_000), FabricSettings.hpcc(100_000_000_000L)), "gen");
        assertEquals(320, g.hosts().size());
        assertEquals(56, g.switches().size());
        assertEquals(480, g.links().size());
        assertEquals(6, g.routes().hops("h0", "h319"));
        assertEquals(4, g.routes().table("tor0").ports(g.hosts().get("h319").mac()).length);
    }

    @Test
    void hpccTextErrorsNameTheLine() {
        TopologyException e = assertThrows(TopologyException.class, () -> HpccTopologyFile.read("3 1 2\n2\n0 2 100Gbps 1us 0\n1 7 100Gbps 1us 0\n", "x.txt"));
        assertTrue(e.getMessage().contains("x.txt") && e.getMessage().contains("4") && e.getMessage().contains("link dst"), e.getMessage());
    }
}
