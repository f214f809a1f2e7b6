package org.urdma.cli.topo;

import org.urdma.switchemu.deploy.TopologyDeployer;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import java.nio.file.Path;
import java.util.concurrent.Callable;

/** {@code urdma topo down FILE}. */
@Command(
    name = "down",
    mixinStandardHelpOptions = true,
    description = {"Stops the topology's switch processes and deletes its namespaces.",
        "The switches print their counters, shown here; the veths go with their namespaces. What goes is what the"
        + " state file lists and anything named with the file's prefix, so it also cleans up after a failed or"
        + " interrupted 'up'."})
public final class TopoDownCommand implements Callable<Integer> {
    @Parameters(index = "0", paramLabel = "FILE", description = "topology file (YAML) given to 'up'")
    Path file;

    @Option(names = "--state-dir", paramLabel = "DIR", description = "as given to 'up' (default: /run/urdma)")
    Path stateDir;

    @Option(names = "--prefix", description = "as given to 'up' (default: from the file's path)")
    String prefix;

    @Override
    public Integer call() throws Exception {
        new TopologyDeployer(file, stateDir, prefix, System.out).down();
        return 0;
    }
}
