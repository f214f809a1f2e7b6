package org.urdma.cli.topo;

import picocli.CommandLine.Option;
import org.urdma.cli.Range;

/** The in-process run's options, shared by {@code urdma switch} and {@code urdma topo up} (a picocli mixin). */
public final class InProcessOptions {
    @Option(names = "--in-process", description = "run the topology in this process (simulated driver) even as root")
    public boolean inProcess;

    @Range(min = 0.001, max = 1)
    @Option(names = "--load", description = "in-process: each default flow's rate as a fraction of its sink's link rate "
        + "(default: ${DEFAULT-VALUE})", defaultValue = "0.6")
    public double load;

    @Range(min = 60, max = 65535)
    @Option(names = "--frame-size", paramLabel = "BYTES", description = "in-process: frame size of flows that give none "
        + "(default: ${DEFAULT-VALUE})", defaultValue = "1024")
    public int frameSize;
}
