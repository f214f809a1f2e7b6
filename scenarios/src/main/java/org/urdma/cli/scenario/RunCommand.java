package org.urdma.cli.scenario;

import java.nio.file.Path;
import java.util.concurrent.Callable;
import org.urdma.cli.Range;
import org.urdma.switchemu.topo.TopologyParser;
import org.urdma.scenario.world.TopologyRun;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code urdma scenario run FILE.yaml}. */
@Command(name = "run", mixinStandardHelpOptions = true,
    description = "Runs a topology file's workloads (urdma devices with the real engine on its hosts) in the simulated "
        + "world until they are done; prints per-workload results and per-switch counters. Same file and seed, same bytes.")
public final class RunCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Mixin
    ScenarioCommand.Common common;

    @Parameters(index = "0", paramLabel = "FILE", description = "topology YAML with a workloads: list (examples/topologies/dcqcn-world.yaml)")
    Path file;

    @Range(min = 0.001, max = 1_000_000)
    @Option(names = "--until-ms", defaultValue = "10000", description = "stop the clock here even if workloads are not done (default ${DEFAULT-VALUE})")
    double untilMs;

    @Option(names = "--out", paramLabel = "DIR", defaultValue = "scenario-run",
        description = "where the fabric telemetry goes: queues.csv, pfc.csv, pfc.txt, links.csv, flows_ecn.csv (default ${DEFAULT-VALUE})")
    Path out;

    @Mixin
    TelemetryOptions telemetry;

    @Override
    public Integer call() throws Exception {
        TopologyRun.Result r = TopologyRun.run(TopologyParser.parse(file), common.seed, (long) (untilMs * 1e6), telemetry.options());
        common.print(spec, r.table());
        TelemetryOptions.write(out, r.telemetry());
        return 0;
    }
}
