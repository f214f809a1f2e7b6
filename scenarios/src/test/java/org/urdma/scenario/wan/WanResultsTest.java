package org.urdma.scenario.wan;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.jfree.data.xy.XYSeries;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class WanResultsTest {
    @TempDir
    Path dir;

    private static WanResults sample() {
        WanResults r = new WanResults(WanProtocol.ALL);
        double[] rtts = {0, 80};
        double[] losses = {0, 0.01, 1};
        for (double rtt : rtts) {
            for (double loss : losses) {
                for (WanProtocol p : WanProtocol.ALL) {
                    long bytes = (long) (1e9 / 8 * 10 * (1 - loss / 2 - rtt / 1000));
                    r.add(new WanCell(p.key(), rtt, loss, 1, bytes, 10, (long) (loss * 100), -1, true, 1.5, loss > 0.5 ? "slow" : ""));
                }
            }
        }
        return r;
    }

    @Test
    void csvRoundTripKeepsEveryCellAndTheChartHasAPanelPerRttAndALinePerProtocol() throws Exception {
        WanResults r = sample();
        Path csv = dir.resolve("wan.csv");
        r.writeCsv(csv);
        WanResults back = WanResults.readCsv(csv, WanProtocol.ALL);
        assertEquals(r.cells().size(), back.cells().size());
        WanCell c = back.cell("tcp-bbr", 80, 0.01);
        assertEquals(r.cell("tcp-bbr", 80, 0.01).fraction(), c.fraction(), 1e-3);
        assertEquals("slow", back.cell("urdma-gbn", 0, 1).note());
        WanChart chart = new WanChart(back, "t");
        assertEquals(List.of(0.0, 80.0), List.copyOf(chart.panels().keySet()));
        XYSeries gbn = chart.panels().get(80.0).getSeries("urdma RC go-back-N");
        assertEquals(3, gbn.getItemCount());
        assertEquals(c.fraction() - 0.0, chart.panels().get(80.0).getSeries("TCP BBR").getY(1).doubleValue(), 1e-3);
        Path png = dir.resolve("wan.png");
        chart.savePng(png);
        assertTrue(Files.size(png) > 1000);
    }

    @Test
    void tableIsShapedLikeThePapersARowPerRttAndLossAColumnPerProtocol() {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        sample().printTable(new PrintStream(b, true, StandardCharsets.UTF_8));
        String[] lines = b.toString(StandardCharsets.UTF_8).split("\n");
        assertEquals("goodput / bottleneck", lines[0]);
        assertTrue(lines[1].contains("TCP CUBIC") && lines[1].contains("TCP BBR") && lines[1].contains("urdma RC go-back-N"), lines[1]);
        assertTrue(lines[2].startsWith("0        0 "), lines[2]);
        assertTrue(lines[7].startsWith("80       1 "), lines[7]);
    }

    @Test
    void unknownProtocolIsRefusedNamingTheOption() {
        IllegalArgumentException e = org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class,
            () -> WanProtocol.select("tcp-bbr,quic"));
        assertTrue(e.getMessage().startsWith("--protocols: unknown protocol 'quic'"), e.getMessage());
    }

    @Test
    void delayLineHoldsTheBandwidthDelayProductAtEveryRateAndRtt() {
        // 80 ms at 1 Gbit/s: 5 MB each way (the default 32 MB holds it); at 10 Gbit/s 50 MB each way: it must grow
        assertTrue(new WanPath(1, 80, 0).delayLineBytes() >= 32L << 20);
        WanPath fast = new WanPath(10, 80, 0);
        long oneWay = (long) (10e9 / 8 * 0.040);
        assertTrue(fast.delayLineBytes() >= oneWay * 256 * 6 / 1514, "cells of 256 B for 1514 B frames: " + fast.delayLineBytes());
        assertTrue(fast.topologyYaml().contains("impairAtoB: {delay: 40.000ms, loss: 0%}"), fast.topologyYaml());
    }

    @Test
    void theWanDelayIsOnTheBottleneckLinkBothWaysNotOnThePfcHop() {
        org.urdma.switchemu.topo.Topology t = org.urdma.switchemu.topo.TopologyParser.parse(new WanPath(1, 20, 1).topologyYaml(), "test");
        for (org.urdma.switchemu.topo.Topology.Link l : t.links()) {
            boolean pfcHop = l.a().equals("h1") || l.b().equals("h1");
            boolean aToB = l.aToB() != null && l.aToB().delays();
            boolean bToA = l.bToA() != null && l.bToA().delays();
            // PFC is hop by hop: a delayed XOFF/XON on h1's link held h1 paused while the bottleneck queue ran dry
            assertEquals(!pfcHop, aToB, l.a() + "-" + l.b() + " forward delay");
            assertEquals(!pfcHop, bToA, l.a() + "-" + l.b() + " return delay");
        }
    }
}
