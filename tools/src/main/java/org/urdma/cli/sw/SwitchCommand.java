package org.urdma.cli.sw;

import org.urdma.cli.topo.InProcessOptions;
import org.urdma.cli.Range;
import org.urdma.nativeio.AfPacketOptions;
import org.urdma.nativeio.Libc;
import org.urdma.switchemu.deploy.ForegroundSwitch;
import org.urdma.switchemu.deploy.InProcessRun;
import org.urdma.switchemu.deploy.KernelNetem;
import org.urdma.switchemu.deploy.RunMode;
import org.urdma.switchemu.deploy.TopologyDeployer;
import org.urdma.transport.counters.CountersFile;
import org.urdma.transport.counters.StatDirectory;
import org.urdma.switchemu.rt.RtOptions;
import org.urdma.switchemu.topo.Topology;
import org.urdma.switchemu.topo.TopologyParser;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.Callable;

/** {@code urdma switch FILE}: one switch of a topology in the foreground, counters on exit. */
@Command(
    name = "switch",
    mixinStandardHelpOptions = true,
    description = {"Runs one switch of a topology file in the foreground on AF_PACKET ports p0..pN.",
        "The ports are made by 'urdma topo up' in the switch's namespace: run it there or give --netns. Stops after"
        + " --duration or on SIGINT/SIGTERM and prints per-port counters: frames, bytes, drops by reason, PFC"
        + " sent/received per priority, ECN marks, queue high-water, impairment and driver counters. While it runs,"
        + " the counters are live in a memory-mapped file: 'urdma stat --name SW' shows them.",
        "Not root (or --in-process): the whole topology runs in this process under the simulated driver, its clock"
        + " paced to the wall clock, hosts sending the file's flows (default: every host to the last one)."})
public final class SwitchCommand implements Callable<Integer> {
    @Parameters(index = "0", paramLabel = "FILE", description = "topology file (YAML)")
    Path file;

    @Option(names = "--name", paramLabel = "SW", description = "switch to run (default: the only one)")
    String name;

    @Option(names = "--netns", paramLabel = "NS", description = "open the ports in this network namespace")
    String netns;

    @Option(names = "--pcap", paramLabel = "DIR", description = "write SW-pN.pcap per port (received and sent frames)")
    Path pcap;

    @Option(names = "--duration", paramLabel = "TIME", description = "stop after this long, e.g. 10s, PT1M (default: until stopped)")
    String duration;

    @Range
    @Option(names = "--seed", description = "seed of impairment and ECN decisions (default: ${DEFAULT-VALUE})", defaultValue = "1")
    long seed;

    @Option(names = "--no-impair", description = "do not apply the topology's impairment (e.g. tc netem does it)")
    boolean noImpair;

    @Option(names = "--rx-ring", description = "RX ring format: V2 (per frame, low latency) or V3 (blocks) (default: ${DEFAULT-VALUE})",
        defaultValue = "V2")
    AfPacketOptions.Version rxRing;

    @Range(min = 1, max = 4096)
    @Option(names = "--rx-ring-mb", description = "RX ring per port, MB (frames not yet read wait here) (default: ${DEFAULT-VALUE})",
        defaultValue = "8")
    int rxRingMb;

    @Option(names = "--idle", description = "idle strategy of the driver thread: ${COMPLETION-CANDIDATES} (default: the "
        + "driver's)")
    RtOptions.Idle idle;

    @picocli.CommandLine.Mixin
    InProcessOptions inProc = new InProcessOptions();

    @Option(names = "--counters", paramLabel = "PATH", description = "live counters file (default: "
        + "STATDIR/PREFIX-SW.counters, STATDIR = $URDMA_STAT_DIR or /dev/shm/urdma-USER)")
    Path counters;

    @Option(names = "--no-counters", description = "do not publish live counters")
    boolean noCounters;

    @Option(names = "--netem-links", split = ",", paramLabel = "LINE", hidden = true,
        description = "lines of the links tc netem impairs (set by 'urdma topo up')")
    java.util.List<Integer> netemLinks = new java.util.ArrayList<>();

    @picocli.CommandLine.Spec
    picocli.CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() throws Exception {
        Topology topology = TopologyParser.parse(file);
        String sw = ForegroundSwitch.pick(topology, name);
        long durationNs = duration == null ? 0 : parseDuration(duration).toNanos();
        RunMode mode = RunMode.decide(Libc.geteuid(), inProc.inProcess);
        if (mode.inProcess()) {
            Path stat = noCounters ? null : counters != null ? counters
                : StatDirectory.forWriting().resolve(TopologyDeployer.prefixFor(file) + "-" + sw + CountersFile.SUFFIX);
            InProcessRun.runAndReport(topology, sw, mode.reason(), new InProcessRun.Options(
                durationNs > 0 ? durationNs : Long.MAX_VALUE, seed, inProc.load, inProc.frameSize, pcap, stat), System.out);
            return 0;
        }
        RtOptions options = RtOptions.defaults().seed(seed).impair(!noImpair).rxVersion(rxRing).pcapDir(pcap)
            .rxRingBytes(rxRingMb << 20);
        if (idle != null) {
            options.idle(idle);
        }
        Path stat = noCounters ? null : counters != null ? counters
            : StatDirectory.forWriting().resolve(TopologyDeployer.prefixFor(file) + "-" + sw + CountersFile.SUFFIX);
        try {
            ForegroundSwitch.run(topology, sw, options, netns, durationNs, System.out,
                KernelNetem.linksAt(topology, netemLinks), stat);
        } catch (org.urdma.nativeio.NativeException e) {
            spec.commandLine().getErr().println("urdma switch: " + e.getMessage() + "\n  the ports p0..pN are made by "
                + "'urdma topo up " + file + "' in the switch's namespace: run this there or give --netns NS; "
                + "--in-process runs the topology without them");
            return 1;
        }
        return 0;
    }

    /** "10s", "500ms", "2m", "1h" or ISO-8601 ("PT10S"). */
    public static Duration parseDuration(String text) {
        String t = text.trim().toLowerCase(java.util.Locale.ROOT);
        try {
            if (t.startsWith("p")) {
                return Duration.parse(text.trim());
            }
            if (t.endsWith("ms")) {
                return Duration.ofMillis(Long.parseLong(t.substring(0, t.length() - 2)));
            }
            long n = Long.parseLong(t.substring(0, t.length() - 1));
            return switch (t.charAt(t.length() - 1)) {
                case 's' -> Duration.ofSeconds(n);
                case 'm' -> Duration.ofMinutes(n);
                case 'h' -> Duration.ofHours(n);
                default -> throw new IllegalArgumentException();
            };
        } catch (RuntimeException e) {
            throw new picocli.CommandLine.ParameterException(new picocli.CommandLine(new SwitchCommand()),
                "--duration: expected e.g. 10s, 500ms, 2m or PT10S, got '" + text + "'");
        }
    }
}
