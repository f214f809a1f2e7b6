package org.urdma.cli.scenario;

import java.io.PrintStream;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import org.urdma.scenario.wan.CopyRow;
import org.urdma.scenario.wan.CopyScenario;
import org.urdma.scenario.wan.CopyWorkload;
import org.urdma.cli.Range;
import org.urdma.nativeio.netns.Privileges;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code urdma scenario copy}: urdma copy beside scp, rsync and tar over ssh on the WAN scenario's path, with ceilings. */
@Command(name = "copy", mixinStandardHelpOptions = true,
    description = "Copies one large file, a tree of small files and a sparse file across the WAN scenario's path (h1 - s1 - h2 "
        + "through the real-time switch, RTT and loss in its impairment stage) with urdma copy (WAN mode), scp, rsync -a --partial "
        + "over ssh and tar | ssh (trees), each checked by sha256sum -c at the destination, beside the ceilings urdma perf "
        + "write-bw --wan and iperf3 -C bbr in the same cell; a table, copy.csv and copy.png. As root (namespaces, an sshd in h2).")
public final class CopyScenarioCommand implements Callable<Integer> {
    @Option(names = "--rate", paramLabel = "RATE", description = "Bottleneck rate, e.g. 1G, 500M (default: ${DEFAULT-VALUE})")
    String rate = WanScenarioCommand.DEFAULT_RATE;

    @Option(names = "--rtt", paramLabel = "MS,...", description = "Round-trip times in ms (default: ${DEFAULT-VALUE})")
    String rtt = "0,20,80";

    @Option(names = "--loss", paramLabel = "PERCENT,...", description = "Random loss rates in %% on the data direction (default: ${DEFAULT-VALUE})")
    String loss = "0,0.1,1";

    @Option(names = "--workloads", paramLabel = "NAME,...", description = "large, tree, sparse (default: ${DEFAULT-VALUE})")
    String workloads = "large,tree,sparse";

    @Option(names = "--rows", paramLabel = "NAME,...", description = "urdma-copy, urdma-copy-tcp, scp, rsync, tar-ssh, perf-wan, iperf3-bbr (default: ${DEFAULT-VALUE})")
    String rows = "urdma-copy,urdma-copy-tcp,scp,rsync,tar-ssh,perf-wan,iperf3-bbr";

    @Option(names = "--large-size", paramLabel = "SIZE", description = "The large file's size (default: ${DEFAULT-VALUE})")
    String largeSize = "2G";

    @Range(min = 1, max = 10_000_000)
    @Option(names = "--files", description = "Files in the tree (default: ${DEFAULT-VALUE})")
    int files = 100_000;

    @Option(names = "--file-size", paramLabel = "SIZE", description = "Size of each file in the tree (default: ${DEFAULT-VALUE})")
    String fileSize = "4K";

    @Option(names = "--sparse-size", paramLabel = "SIZE", description = "The sparse file's apparent size; half of it is data (default: ${DEFAULT-VALUE})")
    String sparseSize = "2G";

    @Range(min = 1, max = 3600)
    @Option(names = "--ceiling-seconds", paramLabel = "SECONDS", description = "Seconds each ceiling row runs (default: ${DEFAULT-VALUE})")
    int ceilingSeconds = 10;

    @Range(min = 10, max = 86_400)
    @Option(names = "--row-timeout", paramLabel = "SECONDS", description = "A tool row that runs longer is stopped and reported (default: ${DEFAULT-VALUE})")
    int rowTimeout = 1800;

    @Option(names = "--out", paramLabel = "DIR", description = "Where copy.csv and copy.png go (default: ${DEFAULT-VALUE})")
    Path out = Path.of("scenario-copy");

    @Range(min = Long.MIN_VALUE)
    @Option(names = "--seed", description = "Seed of the switch's loss decisions (default: ${DEFAULT-VALUE})")
    long seed = 1;

    private static final java.util.regex.Pattern SIZE = java.util.regex.Pattern.compile("([0-9]+)([kKmMgGtT]?)");

    /** "4K", "2G", "100000" (bytes) to bytes; anything else is refused naming the option. */
    static long size(String option, String text) {
        java.util.regex.Matcher m = SIZE.matcher(text.strip());
        if (!m.matches()) {
            throw new IllegalArgumentException(option + ": a size like 4K, 64M or 2G, was '" + text + "'");
        }
        int shift = switch (m.group(2).toLowerCase(Locale.ROOT)) {
            case "k" -> 10;
            case "m" -> 20;
            case "g" -> 30;
            case "t" -> 40;
            default -> 0;
        };
        long v = Long.parseLong(m.group(1));
        if (v < 1 || v > (Long.MAX_VALUE >> shift)) {
            throw new IllegalArgumentException(option + ": must be at least 1 byte, was '" + text + "'");
        }
        return v << shift;
    }

    @Override
    public Integer call() throws Exception {
        double gbps = WanScenarioCommand.rateGbps(rate);
        List<Double> rtts = WanScenarioCommand.list("--rtt", rtt, 0, 1000);
        List<Double> losses = WanScenarioCommand.list("--loss", loss, 0, 100);
        List<CopyWorkload> w = CopyWorkload.select("--workloads", workloads);
        List<CopyRow> r = CopyRow.select("--rows", rows);
        long large = size("--large-size", largeSize);
        long each = size("--file-size", fileSize);
        if (each > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("--file-size: at most 2G, was " + fileSize);
        }
        long sparse = size("--sparse-size", sparseSize);
        if (!Privileges.isRoot()) {
            throw new IllegalArgumentException("scenario copy: needs root (network namespaces, AF_PACKET, an sshd in h2)");
        }
        PrintStream o = System.out;
        o.printf(Locale.ROOT, "namespaces through the real-time switch: bottleneck %s Gbit/s, RTT %s ms, loss %s %%, %d cores; "
            + "urdma copy --transport tcp is not a row (not on this branch)%n", WanScenarioCommand.num(gbps), rtt, loss,
            Runtime.getRuntime().availableProcessors());
        CopyScenario.run(new CopyScenario.Plan(gbps, rtts, losses, w, r, new CopyWorkload.Sizes(large, files, (int) each, sparse),
            ceilingSeconds, rowTimeout, out, seed), o);
        return 0;
    }
}
