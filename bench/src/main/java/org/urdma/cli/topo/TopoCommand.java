package org.urdma.cli.topo;

import picocli.CommandLine.Command;

/** {@code urdma topo up|down FILE}. */
@Command(
    name = "topo",
    mixinStandardHelpOptions = true,
    description = "Namespaces, veths, MACs/IPs and switch processes of a topology file (needs root).",
    subcommands = {TopoUpCommand.class, TopoDownCommand.class})
public final class TopoCommand implements Runnable {
    @picocli.CommandLine.Spec
    picocli.CommandLine.Model.CommandSpec spec;

    @Override
    public void run() {
        spec.commandLine().usage(spec.commandLine().getOut());
    }
}
