package org.urdma.switchemu.topo;

import org.junit.jupiter.api.Test;
import org.urdma.switchemu.core.SwitchConfig;
import org.urdma.switchemu.sim.Flow;
import org.urdma.switchemu.sim.SimTopology;
import org.urdma.switchemu.sim.Simulator;

import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class TopologyParserTest {
    private static String example() throws Exception {
        return Files.readString(Path.of(TopologyParserTest.class.getResource("/topo/incast.yaml").toURI()));
    }

    @Test
    void readsHostsSwitchesLinksAndPortOrder() throws Exception {
        Topology t = TopologyParser.parse(example(), "incast.yaml");
        assertEquals(3, t.hosts().size());
        assertEquals(0x02_00_00_00_00_02L, t.hosts().get("h2").mac());
        assertEquals("10.0.0.3/24", t.hosts().get("h3").ipv4());
        assertEquals(3, t.ports("s1").size());
        assertEquals("h3", t.ports("s1").get(2).peer());
        Topology.Link l = t.links().get(2);
        assertEquals(10_000_000_000L, l.rateBps());
        assertEquals(1_000, l.delayNs());
        assertNotNull(l.aToB());
        assertNull(l.bToA());
        SwitchConfig c = t.switchConfig("s1");
        assertEquals(3, c.ports().size());
        assertEquals(10_000_000_000L, c.ports().get(0).rateBps());
        assertEquals(Topology.portMac(0, 1), c.ports().get(1).mac());
    }

    @Test
    void theExampleRunsInTheSimulatorWithItsImpairment() throws Exception {
        Topology t = TopologyParser.parse(example(), "incast.yaml");
        Simulator sim = new Simulator();
        SimTopology net = new SimTopology(t, sim, 42);
        long h3 = t.hosts().get("h3").mac();
        net.hosts.get("h3").send(new Flow(0, t.hosts().get("h1").mac(), 3, 100, 1));
        net.hosts.get("h1").send(new Flow(1, h3, 3, 1000, 20_000).start(100_000));
        net.hosts.get("h2").send(new Flow(2, h3, 3, 1000, 20_000).start(100_000));
        sim.runToIdle(1_000_000_000L);
        long delivered = net.hosts.get("h3").stats(1).unique + net.hosts.get("h3").stats(2).unique;
        double loss = 1 - delivered / 40_000.0;
        assertEquals(0.005, loss, 0.0015, "only the configured 0.5 % impairment loss: PFC keeps the switch lossless");
        assertEquals(0, net.switches.get("s1").core().counters(0).totalDrops() + net.switches.get("s1").core().counters(1).totalDrops());
        assertTrue(net.switches.get("s1").core().counters(0).pfcTx[3] > 0);
        assertTrue(net.switches.get("s1").core().counters(2).ecnMarked == 0, "bare EtherType frames carry no ECN");
        assertTrue(net.hosts.get("h3").stats(1).meanDelayNs() > 50_000);
    }

    private static TopologyException error(String yaml) {
        return assertThrows(TopologyException.class, () -> TopologyParser.parse(yaml, "t.yaml"));
    }

    private static final String BASE = """
        hosts:
          - {name: h1}
          - {name: h2}
        switches:
          - name: s1
        links:
          - {endpoints: [h1, s1], rate: 10G}
          - {endpoints: [h2, s1], rate: 10G}
        """;

    @Test
    void aMinimalFileGetsDefaults() {
        Topology t = TopologyParser.parse(BASE, "t.yaml");
        assertEquals(0x02_00_00_00_00_01L, t.hosts().get("h1").mac());
        assertEquals("10.0.0.2/24", t.hosts().get("h2").ipv4());
        assertEquals(1500, t.links().get(0).mtu());
    }

    @Test
    void errorsNameTheLine() {
        TopologyException e = error(BASE.replace("  - name: s1", "  - name: s1\n    bufer: 4MB"));
        assertEquals(6, e.line(), e.getMessage());
        assertTrue(e.getMessage().startsWith("t.yaml:6: unknown key 'bufer'"), e.getMessage());

        e = error(BASE.replace("{endpoints: [h2, s1], rate: 10G}", "{endpoints: [h2, s1], rate: 10 parsecs}"));
        assertEquals(8, e.line(), e.getMessage());
        assertTrue(e.getMessage().contains("rate"), e.getMessage());

        e = error(BASE.replace("[h2, s1]", "[h9, s1]"));
        assertEquals(8, e.line());
        assertTrue(e.getMessage().contains("h9"), e.getMessage());

        e = error(BASE.replace("{name: h2}", "{name: h1}"));
        assertEquals(3, e.line());
        assertTrue(e.getMessage().contains("already used on line 2"), e.getMessage());

        e = error(BASE + "  - {endpoints: [h1, s1], rate: 10G}\n");
        assertEquals(9, e.line());
        assertTrue(e.getMessage().contains("one port"), e.getMessage());

        e = error(BASE.replace("  - name: s1", "  - name: s1\n    pfc: [9]"));
        assertEquals(6, e.line());

        e = error(BASE.replace("  - name: s1", "  - name: s1\n    ecn: {priorities: [3], kmin: 100KB, kmax: 10KB, pmax: 1%}"));
        assertEquals(6, e.line());
        assertTrue(e.getMessage().contains("kmax"), e.getMessage());

        e = error(BASE.replace("{endpoints: [h2, s1], rate: 10G}", "{endpoints: [h2, s1], rate: 10G, impair: {reorder: 5%}}"));
        assertEquals(8, e.line());
        assertTrue(e.getMessage().contains("reorder"), e.getMessage());

        e = error(BASE.replace("{endpoints: [h2, s1], rate: 10G}", "{endpoints: [h2, s1], rate: 10G, impair: {loss: 120%}}"));
        assertEquals(8, e.line());

        e = error(BASE.replace("  - name: s1", "  - name: s1\n    buffer: 1KB"));
        assertEquals(5, e.line(), "configuration rules name the switch's line: " + e.getMessage());
        assertTrue(e.getMessage().contains("bufferBytes"), e.getMessage());

        e = error("hosts: [\n  {name: h1\n");
        assertTrue(e.getMessage().startsWith("t.yaml:") && e.getMessage().contains("not valid YAML"), e.getMessage());

        e = error("hosts:\n  - {name: h1}\n");
        assertTrue(e.getMessage().contains("links"), e.getMessage());
    }

    @Test
    void unitsParse() {
        assertEquals(10_000_000_000L, Units.rateBps("10G"));
        assertEquals(100_000_000L, Units.rateBps("100Mbps"));
        assertEquals(2_500_000_000L, Units.rateBps("2.5Gbit"));
        assertEquals(1_000, Units.nanos("1us"));
        assertEquals(10_000_000, Units.nanos("10ms"));
        assertEquals(300, Units.nanos("300"));
        assertEquals(4_000_000, Units.bytes("4MB"));
        assertEquals(65_536, Units.bytes("64KiB"));
        assertEquals(0.001, Units.fraction("0.1%"), 1e-12);
        assertEquals(0.25, Units.fraction("0.25"), 1e-12);
        assertThrows(IllegalArgumentException.class, () -> Units.fraction("150%"));
        assertThrows(IllegalArgumentException.class, () -> Units.nanos("5 fortnights"));
    }

    @Test
    void flowsAndImpairmentModesParseAndTheirErrorsNameTheLine() {
        Topology t = TopologyParser.parse(BASE + """
            impairment: switch
            flows:
              - {from: h1, to: h2, rate: 2G, size: 256, priority: 3}
              - {from: h2, to: h1}
            """, "t.yaml");
        assertEquals(2, t.flows().size());
        assertEquals(new Topology.Flow("h1", "h2", 2_000_000_000L, 256, 3, 11), t.flows().get(0));
        assertEquals(new Topology.Flow("h2", "h1", 0, 0, -1, 12), t.flows().get(1));
        assertEquals(Topology.ImpairmentMode.SWITCH, t.links().get(0).mode());
        Topology perLink = TopologyParser.parse(BASE.replace("{endpoints: [h2, s1], rate: 10G}",
            "{endpoints: [h2, s1], rate: 10G, impairment: kernel, impair: {loss: 1%}}"), "t.yaml");
        assertEquals(Topology.ImpairmentMode.SWITCH, perLink.links().get(0).mode(), "the default");
        assertEquals(Topology.ImpairmentMode.KERNEL, perLink.links().get(1).mode());
        assertTrue(perLink.links().get(1).impaired() && !perLink.links().get(0).impaired());

        TopologyException e = error(BASE + "flows:\n  - {from: h1, to: s1}\n");
        assertEquals(10, e.line());
        assertTrue(e.getMessage().contains("flow end 's1' is not a host"), e.getMessage());
        e = error(BASE + "flows:\n  - {from: h1, to: h2, size: 20}\n");
        assertEquals(10, e.line());
        e = error(BASE + "impairment: sometimes\n");
        assertEquals(9, e.line());
        assertTrue(e.getMessage().contains("must be auto, switch or kernel"), e.getMessage());
    }

    @Test
    void dropPsnsParseOnALinkAndBadValuesNameTheLine() {
        Topology t = TopologyParser.parse(BASE.replace("{endpoints: [h2, s1], rate: 10G}",
            "{endpoints: [h2, s1], rate: 10G, dropPsns: {qp: 0x12, psns: [2, 4-5, 100-103]}}"), "t.yaml");
        assertEquals(null, t.links().get(0).dropPsns());
        assertEquals("qp 0x12 psns 2,4-5,100-103", t.links().get(1).dropPsns().toString());
        Topology any = TopologyParser.parse(BASE.replace("{endpoints: [h1, s1], rate: 10G}",
            "{endpoints: [h1, s1], rate: 10G, dropPsns: \"0,7\"}"), "t.yaml");
        assertEquals("any qp psns 0,7", any.links().get(0).dropPsns().toString());

        TopologyException e = error(BASE.replace("{endpoints: [h2, s1], rate: 10G}",
            "{endpoints: [h2, s1], rate: 10G, dropPsns: \"2,x\"}"));
        assertEquals(8, e.line());
        assertTrue(e.getMessage().contains("dropPsns psns: 'x'"), e.getMessage());
        e = error(BASE.replace("{endpoints: [h2, s1], rate: 10G}",
            "{endpoints: [h2, s1], rate: 10G, dropPsns: {qp: 0x1000000, psns: 1}}"));
        assertEquals(8, e.line());
        assertTrue(e.getMessage().contains("dropPsns qp: must be 0..0xFFFFFF"), e.getMessage());
        e = error(BASE.replace("{endpoints: [h2, s1], rate: 10G}",
            "{endpoints: [h2, s1], rate: 10G, dropPsns: {psn: 1}}"));
        assertTrue(e.getMessage().contains("unknown key 'psn'"), e.getMessage());
    }
}
