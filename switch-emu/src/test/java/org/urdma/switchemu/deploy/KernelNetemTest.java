package org.urdma.switchemu.deploy;

import org.junit.jupiter.api.Test;
import org.urdma.switchemu.topo.NetemProbe;
import org.urdma.switchemu.topo.Topology;
import org.urdma.switchemu.topo.TopologyException;
import org.urdma.switchemu.topo.TopologyParser;

import java.util.List;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Who impairs a link (auto, switch, kernel) and the exact tc command lines for the kernel's links. */
class KernelNetemTest {
    private static Topology topology(String mode) {
        return TopologyParser.parse("""
            hosts:
              - {name: h1}
              - {name: h2}
            switches:
              - {name: s1}
            links:
              - {endpoints: [h1, s1], rate: 10G}
              - endpoints: [s1, h2]
                rate: 1G
                impairAtoB: {delay: 20ms, jitter: 2ms, delayCorrelation: 25%, loss: 0.5%}
                impairBtoA: {gemodel: {p: 1%, r: 10%, lossInBad: 70%}, rate: 100M}
            """ + (mode == null ? "" : "    impairment: " + mode + "\n"), "t.yaml");
    }

    @Test
    void autoWithSchNetemImpairsBothDirectionsOnTheSendingEnds() {
        KernelNetem.Plan plan = KernelNetem.plan(topology("auto"), NetemProbe.Result.LOADED);
        assertEquals(List.of(8), plan.kernelLines());
        assertEquals(2, plan.qdiscs().size());
        KernelNetem.Qdisc out = plan.qdiscs().get(0);
        assertEquals("s1", out.node());
        assertEquals(List.of("tc", "qdisc", "add", "dev", "p1", "root", "netem", "delay", "20000us", "2000us", "25%", "loss",
            "random", "0.5%"), out.command());
        KernelNetem.Qdisc back = plan.qdiscs().get(1);
        assertEquals("h2", back.node());
        assertEquals(List.of("tc", "qdisc", "add", "dev", "eth0", "root", "netem", "loss", "gemodel", "1%", "10%", "70%",
            "0%", "rate", "100000000bit"), back.command());
        assertTrue(plan.notes().get(0).contains("kernel tc netem"), plan.notes().toString());
    }

    @Test
    void autoWithoutSchNetemFallsBackToTheSwitchAndSaysSo() {
        KernelNetem.Plan plan = KernelNetem.plan(topology("auto"), NetemProbe.Result.ABSENT);
        assertTrue(plan.qdiscs().isEmpty());
        assertTrue(plan.kernelLinks().isEmpty());
        assertEquals(List.of("link s1-h2 (line 8): switch stage (impairment: auto; the kernel has no sch_netem)"),
            plan.notes());
    }

    @Test
    void kernelWithoutSchNetemFailsNamingTheLine() {
        TopologyException e = assertThrows(TopologyException.class,
            () -> KernelNetem.plan(topology("kernel"), NetemProbe.Result.ABSENT));
        assertEquals(8, e.line());
        assertTrue(e.getMessage().startsWith("t.yaml:8: link s1-h2") && e.getMessage().contains("no sch_netem"),
            e.getMessage());
    }

    @Test
    void switchModeTheDefaultNeverUsesTheKernel() {
        for (String mode : new String[]{null, "switch"}) {
            KernelNetem.Plan plan = KernelNetem.plan(topology(mode), NetemProbe.Result.LOADED);
            assertTrue(plan.qdiscs().isEmpty());
            assertTrue(plan.notes().get(0).contains("switch stage (impairment: switch)"));
        }
    }

    @Test
    void aSwitchToldOfKernelLinksDropsTheirImpairmentAndRefusesUnappliedKernelLinks() {
        Topology t = topology("kernel");
        Set<Topology.Link> kernel = KernelNetem.linksAt(t, List.of(8));
        Topology forSwitch = KernelNetem.forSwitch(t, kernel);
        assertNull(forSwitch.links().get(1).aToB());
        assertNotNull(t.links().get(1).aToB());
        TopologyException e = assertThrows(TopologyException.class, () -> KernelNetem.forSwitch(t, Set.of()));
        assertEquals(8, e.line());
        assertThrows(IllegalArgumentException.class, () -> KernelNetem.linksAt(t, List.of(3)));
    }
}
