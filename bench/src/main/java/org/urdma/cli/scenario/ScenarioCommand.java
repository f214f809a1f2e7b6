package org.urdma.cli.scenario;

import picocli.CommandLine.Command;

/** {@code urdma scenario NAME}: experiments that turn runs into tables, CSV and charts. */
@Command(
    name = "scenario",
    mixinStandardHelpOptions = true,
    description = "Experiments as tables, CSV and PNG charts (wan: the URDMA paper's RTT x loss matrix).",
    subcommands = {WanScenarioCommand.class})
public final class ScenarioCommand implements Runnable {
    @picocli.CommandLine.Spec
    picocli.CommandLine.Model.CommandSpec spec;

    @Override
    public void run() {
        spec.commandLine().usage(spec.commandLine().getOut());
    }
}
