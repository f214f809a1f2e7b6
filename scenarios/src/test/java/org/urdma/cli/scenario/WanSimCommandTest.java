package org.urdma.cli.scenario;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.jfree.data.xy.XYSeriesCollection;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.urdma.scenario.wan.WanCell;
import org.urdma.scenario.wan.WanChart;
import org.urdma.scenario.wan.WanProtocol;
import org.urdma.scenario.wan.WanResults;
import org.urdma.cli.UrdmaCli;

class WanSimCommandTest {
    @TempDir
    Path dir;

    @ParameterizedTest
    @CsvSource(delimiter = ';', value = {
        "--rate;0;--rate: must be 1M..100G",
        "--rate;fast;--rate: a rate like 1G or 500M",
        "--rtt;20,x;--rtt: 'x' is not a number",
        "--rtt;-5;--rtt: -5 must be 0..1000",
        "--loss;100;--loss: 100 must be 0..99",
        "--sim-ms;0;--sim-ms",
        "--rows;SACK,tcp;--rows: unknown row 'tcp'"})
    void badValueIsRefusedInOneLineNamingTheOption(String option, String value, String message) {
        String line = Refusal.of("scenario", "wan-sim", option, value, "--out", "/nonexistent/never-written");
        assertTrue(line.startsWith("urdma scenario wan-sim: " + message), line);
    }

    @Test
    void shortFormWritesTheTableCsvAndChartWithARowPerSeries() throws Exception {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        PrintStream saved = System.out;
        int rc;
        try (PrintStream capture = new PrintStream(bytes, true, StandardCharsets.UTF_8)) {
            System.setOut(capture);
            rc = UrdmaCli.commandLine().execute("scenario", "wan-sim", "--rate", "10G", "--rtt", "20", "--loss", "0.1,1",
                "--rows", "go-back-N,SACK", "--sim-ms", "60", "--out", dir.toString());
        } finally {
            System.setOut(saved);
        }
        String out = bytes.toString(StandardCharsets.UTF_8);
        assertEquals(0, rc, out);
        assertTrue(out.contains("goodput / bottleneck"), out);
        assertTrue(Files.size(dir.resolve("wan-sim.png")) > 1000, "the chart");
        List<WanProtocol> rows = List.of(WanProtocol.urdma("go-back-N", "go-back-N"), WanProtocol.urdma("SACK", "SACK"));
        WanResults r = WanResults.readCsv(dir.resolve("wan-sim.csv"), rows);
        assertEquals(4, r.cells().size());
        WanCell gbn = r.cell("go-back-N", 20, 1);
        WanCell sack = r.cell("SACK", 20, 1);
        assertTrue(sack.fraction() > 5 * gbn.fraction() && sack.fraction() > 0.5, "SACK " + sack + " vs go-back-N " + gbn);
        for (WanCell c : r.cells()) assertTrue(c.verified(), c.toString());
        XYSeriesCollection panel = new WanChart(r, "t").panels().get(20.0);
        assertEquals(List.of("go-back-N", "SACK"), List.of(panel.getSeriesKey(0), panel.getSeriesKey(1)));
        assertEquals(2, panel.getSeries(1).getItemCount(), "a point per loss rate");
    }
}
