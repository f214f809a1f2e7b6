package org.urdma.cli.scenario;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.urdma.scenario.world.ResultTable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code urdma scenario NAME}: experiments that turn runs into tables, CSV and charts. */
@Command(
    name = "scenario",
    mixinStandardHelpOptions = true,
    description = "Experiments as tables, CSV and charts: wan (the URDMA paper's RTT x loss matrix through the real-time switch), copy (urdma copy beside scp, rsync and TCP on that path), wan-sim (the same matrix at 100 Gbit/s in simulated time), livelock, deadlock, incast, speed, run FILE.yaml (the simulated world: real engines and switch cores under one clock), fct (flow completion times of a flow workload on a fabric, per congestion control) and sweep (fct runs over CCs, loads and seeds, in parallel or as a cluster job list).",
    subcommands = {WanScenarioCommand.class, CopyScenarioCommand.class, WanSimCommand.class, LivelockCommand.class, DeadlockCommand.class, SpeedCommand.class,
        IncastCommand.class, RunCommand.class, FctCommand.class, SweepCommand.class})
public final class ScenarioCommand implements Runnable {
    @Spec
    CommandSpec spec;

    @Override
    public void run() {
        spec.commandLine().usage(spec.commandLine().getOut());
    }

    /** The options every scenario has: where the CSV goes, the seed. */
    static final class Common {
        @Option(names = "--csv", description = "also write the table as CSV to this file")
        Path csv;

        @org.urdma.cli.Range
        @Option(names = "--seed", defaultValue = "1", description = "seed of the world (default ${DEFAULT-VALUE})")
        long seed;

        void print(CommandSpec spec, ResultTable t) throws IOException {
            spec.commandLine().getOut().print(t.text());
            spec.commandLine().getOut().flush();
            if (csv != null) Files.writeString(csv, t.csv());
        }
    }
}
