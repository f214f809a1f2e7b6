package org.urdma.scenario.wan;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.urdma.cli.UrdmaCli;
import org.urdma.nativeio.netns.junit.RootAssumptions;

/**
 * {@code scenario copy} in its CI form: one cell (20 ms, no loss), small workloads and 1-second ceilings, every row.
 * Checks that the table, copy.csv and copy.png exist and that the CSV holds every row of every cell, each verified.
 */
@Tag("root")
class CopyScenarioShortRunTest {
    @TempDir
    Path dir;

    @Test
    void shortMatrixWritesTheTableCsvAndPngWithEveryRowOfEveryCellVerified() throws Exception {
        RootAssumptions.assumeRoot();
        ByteArrayOutputStream text = new ByteArrayOutputStream();
        PrintStream saved = System.out;
        int rc;
        try (PrintStream capture = new PrintStream(text, true, StandardCharsets.UTF_8)) {
            System.setOut(capture);
            rc = UrdmaCli.commandLine().execute("scenario", "copy", "--rtt", "20", "--loss", "0", "--large-size", "8M", "--files",
                "100", "--sparse-size", "8M", "--ceiling-seconds", "1", "--row-timeout", "120", "--out", dir.toString());
        } finally {
            System.setOut(saved);
        }
        String out = text.toString(StandardCharsets.UTF_8);
        System.out.println(out);
        assertEquals(0, rc, out);
        for (CopyRow r : CopyRow.values()) {
            assertTrue(out.contains(r.label()), "table row " + r.label());
        }
        CopyResults csv = CopyResults.readCsv(dir.resolve("copy.csv"));
        // per cell: 3 workloads x (urdma copy over WAN and TCP, scp, rsync) + tar | ssh for the tree, then the 2 ceilings
        assertEquals(3 * 4 + 1 + 2, csv.cells().size(), "a CSV line per row, workload and cell");
        for (double rtt : List.of(20.0)) {
            for (CopyRow r : CopyRow.values()) {
                for (CopyWorkload w : CopyWorkload.values()) {
                    if (r.ceiling() || !r.runsFor(w)) {
                        continue;
                    }
                    assertTrue(csv.cells().stream().anyMatch(c -> c.rttMs() == rtt && c.row().equals(r.key()) && c.workload().equals(w.key())
                        && c.verified()), "a verified " + r.key() + " row for " + w.key() + " at " + rtt + " ms");
                }
            }
            assertTrue(csv.cells().stream().anyMatch(c -> c.rttMs() == rtt && c.row().equals("perf-wan") && c.payloadBytes() > 0));
            assertTrue(csv.cells().stream().anyMatch(c -> c.rttMs() == rtt && c.row().equals("iperf3-bbr") && c.payloadBytes() > 0));
        }
        assertTrue(Files.size(dir.resolve("copy.png")) > 1000, "copy.png drawn");
    }
}
