package org.urdma.cli.scenario;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.urdma.scenario.world.ResultTable;

/**
 * A sweep's one table, from its runs' result files: for every run of the manifest ({@link SweepPlan#MANIFEST}), the
 * p50/p95/p99 slowdown per flow-size group of its {@code slowdown.csv}, a row per run and group. The same files give the
 * same table, whether the runs ran in this process, under GNU parallel or as a Slurm array.
 */
final class SweepTable {
    private SweepTable() {
    }

    /** The table of the sweep in {@code dir}; a missing manifest or result file is a one-line error naming it. */
    static ResultTable gather(Path dir) throws IOException {
        Path manifest = dir.resolve(SweepPlan.MANIFEST);
        if (!Files.exists(manifest)) throw new IllegalArgumentException("--gather: no " + manifest + " (not a sweep directory)");
        List<String[]> runs = new ArrayList<>();
        for (String line : Files.readAllLines(manifest, StandardCharsets.UTF_8)) {
            if (line.isBlank() || line.startsWith("#")) continue;
            String[] f = line.split("\t");
            if (f.length != 4) throw new IllegalArgumentException(manifest + ": expected 'name cc load seed', got '" + line + "'");
            runs.add(f);
        }
        List<String> missing = new ArrayList<>();
        for (String[] r : runs) {
            if (!Files.exists(dir.resolve(r[0]).resolve("slowdown.csv"))) missing.add(r[0]);
        }
        if (!missing.isEmpty()) {
            throw new IllegalArgumentException("--gather: " + missing.size() + " of " + runs.size() + " runs have no results yet, first "
                    + dir.resolve(missing.get(0)).resolve("slowdown.csv"));
        }
        ResultTable t = new ResultTable("sweep: " + runs.size() + " runs of scenario fct (cc x load x seed)", "cc", "load", "seed",
                "pct", "size", "p50", "p95", "p99");
        for (String[] r : runs) {
            Path csv = dir.resolve(r[0]).resolve("slowdown.csv");
            List<String> lines = Files.readAllLines(csv, StandardCharsets.UTF_8);
            for (int i = 1; i < lines.size(); i++) {
                String[] c = lines.get(i).split(",");
                if (c.length != 5) throw new IllegalArgumentException(csv + ":" + (i + 1) + ": expected pct,size,p50,p95,p99");
                t.row(r[1], r[2], r[3], c[0], c[1], c[2], c[3], c[4]);
            }
        }
        t.note("one row per run and flow-size group; each run's files in " + dir + "/NAME (runs.tsv names them)");
        return t;
    }
}
