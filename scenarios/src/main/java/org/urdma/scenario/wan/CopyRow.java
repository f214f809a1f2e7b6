package org.urdma.scenario.wan;

import java.util.List;
import java.util.Locale;

/** A row of {@code scenario copy}: a tool that moves the workload, or a ceiling measured on the same path. */
public enum CopyRow {
    URDMA_COPY("urdma-copy", "urdma copy (WAN)", false),
    URDMA_COPY_TCP("urdma-copy-tcp", "urdma copy --transport tcp --cc bbr", false),
    SCP("scp", "scp -r", false),
    RSYNC("rsync", "rsync -a --partial -e ssh", false),
    TAR_SSH("tar-ssh", "tar | ssh (trees)", false),
    PERF_WAN("perf-wan", "ceiling: urdma perf write-bw --wan", true),
    IPERF3_BBR("iperf3-bbr", "ceiling: iperf3 -C bbr", true);

    private final String key;
    private final String label;
    private final boolean ceiling;

    CopyRow(String key, String label, boolean ceiling) {
        this.key = key;
        this.label = label;
        this.ceiling = ceiling;
    }

    public String key() {
        return key;
    }

    public String label() {
        return label;
    }

    /** A ceiling moves memory, not the workload: it runs once per cell, not per workload. */
    public boolean ceiling() {
        return ceiling;
    }

    /** Whether this row runs for {@code w}: {@code tar | ssh} only for trees. */
    public boolean runsFor(CopyWorkload w) {
        return this != TAR_SSH || w == CopyWorkload.TREE;
    }

    public static CopyRow of(String key) {
        for (CopyRow r : values()) {
            if (r.key.equals(key)) {
                return r;
            }
        }
        return null;
    }

    /** Parses a comma-separated list of row keys; an unknown one is refused naming {@code option}. */
    public static List<CopyRow> select(String option, String keys) {
        return java.util.Arrays.stream(keys.split(",")).map(k -> k.strip().toLowerCase(Locale.ROOT)).map(k -> {
            CopyRow r = of(k);
            if (r == null) {
                throw new IllegalArgumentException(option + ": one of " + String.join(", ",
                    java.util.Arrays.stream(values()).map(CopyRow::key).toList()) + ", was '" + k + "'");
            }
            return r;
        }).distinct().toList();
    }
}
