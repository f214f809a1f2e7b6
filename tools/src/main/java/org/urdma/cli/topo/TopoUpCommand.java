package org.urdma.cli.topo;

import org.urdma.cli.UrdmaCli;
import org.urdma.cli.Range;
import org.urdma.cli.sw.SwitchCommand;
import org.urdma.nativeio.Libc;
import org.urdma.switchemu.deploy.InProcessRun;
import org.urdma.switchemu.deploy.RunMode;
import org.urdma.switchemu.deploy.TopologyDeployer;
import org.urdma.transport.counters.CountersFile;
import org.urdma.transport.counters.StatDirectory;
import org.urdma.switchemu.topo.Topology;
import org.urdma.switchemu.topo.TopologyParser;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;

/** {@code urdma topo up FILE}. */
@Command(
    name = "up",
    mixinStandardHelpOptions = true,
    description = {"Creates a namespace per host and switch and a veth per link, and starts a switch process in each"
        + " switch namespace.",
        "Each veth gets the link's MTU, MACs and host IPs; 'urdma switch FILE --name SW' runs inside each switch"
        + " namespace (log: STATE_DIR/PREFIX-SW.log). Everything made is recorded in STATE_DIR/PREFIX.state for"
        + " 'urdma topo down FILE'. Links asking for kernel impairment (impairment: kernel, or auto where the kernel"
        + " has sch_netem) get tc netem qdiscs instead.",
        "Not root (or --in-process): runs the whole topology in this process for --duration instead (simulated"
        + " driver paced to the wall clock; hosts send the file's flows, default every host to the last one) and"
        + " prints the per-port counters; nothing is left behind. 'urdma stat FILE' shows live counters either way."})
public final class TopoUpCommand implements Callable<Integer> {
    @Parameters(index = "0", paramLabel = "FILE", description = "topology file (YAML)")
    Path file;

    @Option(names = "--state-dir", paramLabel = "DIR", description = "state file and switch logs (default: /run/urdma)")
    Path stateDir;

    @Option(names = "--prefix", description = "namespace name prefix, 1-6 of [a-z0-9] (default: from the file's path)")
    String prefix;

    @Option(names = "--pcap", paramLabel = "DIR", description = "switches write SW-pN.pcap per port here")
    Path pcap;

    @Range
    @Option(names = "--seed", description = "seed for the switches' impairment and ECN (default: ${DEFAULT-VALUE})", defaultValue = "1")
    long seed;

    @Range(min = 1)
    @Option(names = "--ready-timeout", paramLabel = "MS", description = "wait this long for each switch (default: ${DEFAULT-VALUE})",
        defaultValue = "60000")
    long readyTimeoutMs;

    @picocli.CommandLine.Mixin
    InProcessOptions inProc = new InProcessOptions();

    @Option(names = "--duration", paramLabel = "TIME", description = "in-process: run this long (default: ${DEFAULT-VALUE})",
        defaultValue = "10s")
    String duration;

    @picocli.CommandLine.Spec
    picocli.CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() throws Exception {
        RunMode mode = RunMode.decide(Libc.geteuid(), inProc.inProcess);
        if (mode.inProcess()) {
            Topology topology = TopologyParser.parse(file);
            String p = prefix != null ? prefix : TopologyDeployer.prefixFor(file);
            Path counters = StatDirectory.forWriting().resolve(p + CountersFile.SUFFIX);
            InProcessRun.runAndReport(topology, null, mode.reason(), new InProcessRun.Options(
                SwitchCommand.parseDuration(duration).toNanos(), seed, inProc.load, inProc.frameSize, pcap, counters), System.out);
            return 0;
        }
        TopologyDeployer d = new TopologyDeployer(file, stateDir, prefix, System.out);
        List<String> args = new ArrayList<>(List.of("--seed", Long.toString(seed)));
        if (pcap != null) {
            args.addAll(List.of("--pcap", pcap.toAbsolutePath().toString()));
        }
        d.up(launcher(), args, readyTimeoutMs);
        return 0;
    }

    /** This JVM's java and class path, running the urdma CLI (works from the jar and from tests). */
    static List<String> launcher() {
        String java = ProcessHandle.current().info().command().orElse(
            Path.of(System.getProperty("java.home"), "bin", "java").toString());
        // the flags of the urdma launcher script (Agrona needs jdk.internal.misc, FFM needs native access)
        return List.of(java, "--enable-native-access=ALL-UNNAMED", "--sun-misc-unsafe-memory-access=allow",
            "--add-opens", "java.base/java.nio=ALL-UNNAMED", "--add-opens", "java.base/sun.nio.ch=ALL-UNNAMED",
            "--add-exports", "java.base/jdk.internal.misc=ALL-UNNAMED",
            "-cp", System.getProperty("java.class.path"), UrdmaCli.class.getName());
    }
}
