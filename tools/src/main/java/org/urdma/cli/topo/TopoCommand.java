package org.urdma.cli.topo;

import picocli.CommandLine.Command;

/** {@code urdma topo up|down FILE}. */
@Command(
    name = "topo",
    mixinStandardHelpOptions = true,
    description = "Namespaces, veths, MACs/IPs and switch processes of a topology file (up/down, need root); fabric generators (gen) and the HPCC importer (import).",
    subcommands = {TopoUpCommand.class, TopoDownCommand.class, TopoGenCommand.class, TopoImportCommand.class})
public final class TopoCommand implements Runnable {
    @picocli.CommandLine.Spec
    picocli.CommandLine.Model.CommandSpec spec;

    @Override
    public void run() {
        spec.commandLine().usage(spec.commandLine().getOut());
    }
}
