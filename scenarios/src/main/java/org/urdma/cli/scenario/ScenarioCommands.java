package org.urdma.cli.scenario;

import org.urdma.cli.CliExtension;
import picocli.CommandLine;

/** {@code urdma scenario} and its experiments. */
public final class ScenarioCommands implements CliExtension {

    @Override
    public void addTo(CommandLine urdma) {
        urdma.addSubcommand(new ScenarioCommand());
    }
}
