package org.urdma.cli.topo;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.concurrent.Callable;
import org.urdma.cli.Range;
import org.urdma.switchemu.topo.FabricGenerator;
import org.urdma.switchemu.topo.FabricSettings;
import org.urdma.switchemu.topo.Topology;
import org.urdma.switchemu.topo.TopologyParser;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/** {@code urdma topo gen fat-tree|leaf-spine}: a fabric written as topology YAML. */
@Command(name = "gen", mixinStandardHelpOptions = true,
    description = "Writes a generated fabric as topology YAML (edit it, then run it: urdma scenario fct --topology FILE).",
    subcommands = {TopoGenCommand.FatTree.class, TopoGenCommand.LeafSpine.class})
public final class TopoGenCommand implements Runnable {
    @Spec
    CommandSpec spec;

    @Override
    public void run() {
        spec.commandLine().usage(spec.commandLine().getOut());
    }

    /** What every switch gets, and where the YAML goes. */
    static final class Settings {
        @Range(min = 0.064, max = 4096)
        @Option(names = "--buffer-mb", description = "every switch's shared buffer in MB (default: HPCC's, 16 MB per 50 Gbit/s of host rate)")
        Double bufferMb;

        @Option(names = "--routing", defaultValue = "ecmp", description = "ecmp (a next hop per flow) or spray (per packet); default ${DEFAULT-VALUE}")
        String routing;

        @Range(min = 0, max = 1_000_000_000)
        @Option(names = "--kmin-kb", defaultValue = "100", description = "RED/ECN kmin in KB for a port of --ecn-per-gbps (scaled per port rate; default ${DEFAULT-VALUE})")
        double kminKb;

        @Range(min = 0.001, max = 1_000_000_000)
        @Option(names = "--kmax-kb", defaultValue = "400", description = "RED/ECN kmax in KB, likewise (default ${DEFAULT-VALUE})")
        double kmaxKb;

        @Range(min = 0, max = 1)
        @Option(names = "--pmax", defaultValue = "0.2", description = "marking probability at kmax (default ${DEFAULT-VALUE})")
        double pmax;

        @Range(min = 0.001, max = 100_000)
        @Option(names = "--ecn-per-gbps", defaultValue = "25", description = "the port rate kmin/kmax are given for (default ${DEFAULT-VALUE}, as HPCC's run.py)")
        double ecnPerGbps;

        @Option(names = {"-o", "--out"}, paramLabel = "FILE", description = "write the YAML here (default: standard output)")
        Path out;

        FabricSettings settings(CommandSpec spec, long hostRateBps) {
            Topology.RoutingMode mode = switch (routing.trim().toLowerCase(Locale.ROOT)) {
                case "ecmp" -> Topology.RoutingMode.ECMP;
                case "spray" -> Topology.RoutingMode.SPRAY;
                default -> throw new ParameterException(spec.commandLine(), "--routing: expected ecmp or spray, got '" + routing + "'");
            };
            if (kmaxKb <= kminKb) throw new ParameterException(spec.commandLine(), "--kmax-kb: must be above --kmin-kb");
            FabricSettings s = FabricSettings.hpcc(hostRateBps).withRouting(mode)
                    .withEcn(Math.round(kminKb * 1000), Math.round(kmaxKb * 1000), pmax, Math.round(ecnPerGbps * 1e9));
            return bufferMb == null ? s : s.withBuffer(Math.round(bufferMb * 1e6));
        }

        void write(CommandSpec spec, String yaml) throws Exception {
            writeYaml(spec, out, yaml, "generated");
        }
    }

    /** Checks that {@code yaml} parses, then writes it to {@code out} (or standard output when null). */
    static void writeYaml(CommandSpec spec, Path out, String yaml, String source) throws java.io.IOException {
        TopologyParser.parse(yaml, source);
        if (out == null) {
            spec.commandLine().getOut().print(yaml);
            spec.commandLine().getOut().flush();
        } else {
            Files.writeString(out, yaml);
            spec.commandLine().getOut().println("wrote " + out);
        }
    }

    @Command(name = "fat-tree", mixinStandardHelpOptions = true,
        description = {"A three-tier fat tree.",
            "--k K is the k-ary fat tree (k pods of k/2 ToRs and k/2 aggs, k/2 hosts per ToR, (k/2)^2 cores); --pods/--tors/--aggs/--hosts-per-tor/--cores shape others, e.g. HPCC's fat.txt:",
            "--pods 5 --tors 4 --aggs 4 --hosts-per-tor 16 --cores 16 --host-gbps 100 --fabric-gbps 400."})
    public static final class FatTree implements Callable<Integer> {
        @Spec
        CommandSpec spec;

        @Mixin
        Settings settings;

        @Range(min = 2, max = 254, integer = true)
        @Option(names = "--k", description = "k of a k-ary fat tree (even)")
        Integer k;

        @Range(min = 1, max = 255)
        @Option(names = "--pods", description = "pods")
        Integer pods;

        @Range(min = 1, max = 255)
        @Option(names = "--tors", description = "ToRs per pod")
        Integer tors;

        @Range(min = 1, max = 255)
        @Option(names = "--aggs", description = "aggregation switches per pod")
        Integer aggs;

        @Range(min = 1, max = 254)
        @Option(names = "--hosts-per-tor", description = "hosts per ToR")
        Integer hostsPerTor;

        @Range(min = 1, max = 65_025)
        @Option(names = "--cores", description = "core switches (a multiple of --aggs)")
        Integer cores;

        @Range(min = 0.001, max = 1_600)
        @Option(names = "--host-gbps", defaultValue = "100", description = "host link rate (default ${DEFAULT-VALUE})")
        double hostGbps;

        @Range(min = 0.001, max = 1_600)
        @Option(names = "--fabric-gbps", description = "ToR-agg and agg-core rate (default: the host rate)")
        Double fabricGbps;

        @Range(min = 0.001, max = 1_600)
        @Option(names = "--core-gbps", description = "agg-core rate (default: --fabric-gbps)")
        Double coreGbps;

        @Range(min = 0, max = 1_000_000_000)
        @Option(names = "--delay-ns", defaultValue = "1000", description = "every link's propagation delay (default ${DEFAULT-VALUE})")
        long delayNs;

        @Override
        public Integer call() throws Exception {
            long host = Math.round(hostGbps * 1e9);
            long fabric = fabricGbps == null ? host : Math.round(fabricGbps * 1e9);
            long core = coreGbps == null ? fabric : Math.round(coreGbps * 1e9);
            FabricGenerator.FatTree t;
            try {
                if (k != null) {
                    FabricGenerator.FatTree x = FabricGenerator.FatTree.ofK(k, host, fabric, delayNs);
                    t = new FabricGenerator.FatTree(pods == null ? x.pods() : pods, tors == null ? x.torsPerPod() : tors,
                            aggs == null ? x.aggsPerPod() : aggs, hostsPerTor == null ? x.hostsPerTor() : hostsPerTor,
                            cores == null ? x.cores() : cores, host, fabric, core, delayNs, delayNs, delayNs);
                } else {
                    if (pods == null || tors == null || aggs == null || hostsPerTor == null || cores == null) {
                        throw new IllegalArgumentException("give --k, or all of --pods --tors --aggs --hosts-per-tor --cores");
                    }
                    t = new FabricGenerator.FatTree(pods, tors, aggs, hostsPerTor, cores, host, fabric, core, delayNs, delayNs, delayNs);
                }
                settings.write(spec, FabricGenerator.fatTree(t, settings.settings(spec, host)));
            } catch (IllegalArgumentException e) {
                throw new ParameterException(spec.commandLine(), e.getMessage());
            }
            return 0;
        }
    }

    @Command(name = "leaf-spine", mixinStandardHelpOptions = true,
        description = "A two-tier leaf-spine: every leaf to every spine; the spine rate from --spine-gbps or --oversubscription.")
    public static final class LeafSpine implements Callable<Integer> {
        @Spec
        CommandSpec spec;

        @Mixin
        Settings settings;

        @Range(min = 1, max = 255)
        @Option(names = "--leaves", required = true, description = "leaves")
        int leaves;

        @Range(min = 1, max = 254)
        @Option(names = "--spines", required = true, description = "spines")
        int spines;

        @Range(min = 1, max = 254)
        @Option(names = "--hosts-per-leaf", required = true, description = "hosts per leaf")
        int hostsPerLeaf;

        @Range(min = 0.001, max = 1_600)
        @Option(names = "--host-gbps", defaultValue = "100", description = "host link rate (default ${DEFAULT-VALUE})")
        double hostGbps;

        @Range(min = 0.001, max = 1_600)
        @Option(names = "--spine-gbps", description = "leaf-spine link rate (default: from --oversubscription)")
        Double spineGbps;

        @Range(min = 0.01, max = 1_000)
        @Option(names = "--oversubscription", defaultValue = "1", description = "a leaf's host capacity over its uplink capacity (default ${DEFAULT-VALUE})")
        double oversubscription;

        @Range(min = 0, max = 1_000_000_000)
        @Option(names = "--delay-ns", defaultValue = "1000", description = "every link's propagation delay (default ${DEFAULT-VALUE})")
        long delayNs;

        @Override
        public Integer call() throws Exception {
            long host = Math.round(hostGbps * 1e9);
            try {
                long spine = spineGbps != null ? Math.round(spineGbps * 1e9)
                        : FabricGenerator.LeafSpine.spineRateFor(hostsPerLeaf, host, spines, oversubscription);
                settings.write(spec, FabricGenerator.leafSpine(new FabricGenerator.LeafSpine(leaves, spines, hostsPerLeaf, host, spine,
                        delayNs, delayNs), settings.settings(spec, host)));
            } catch (IllegalArgumentException e) {
                throw new ParameterException(spec.commandLine(), e.getMessage());
            }
            return 0;
        }
    }
}
