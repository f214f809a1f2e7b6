package org.urdma.cli.scenario;

import java.util.concurrent.Callable;
import org.urdma.cli.Range;
import org.urdma.switchemu.world.scenario.Speed;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code urdma scenario speed}. */
@Command(name = "speed", mixinStandardHelpOptions = true,
    description = "Simulated seconds per wall second and events/s: a two-host path and an N:1 incast of RC WRITEs.")
public final class SpeedCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Mixin
    ScenarioCommand.Common common;

    @Range(min = 0.1, max = 800)
    @Option(names = "--path-gbps", defaultValue = "100", description = "two-host link rate (default ${DEFAULT-VALUE})")
    double pathGbps;

    @Range(min = 0.1, max = 800)
    @Option(names = "--incast-gbps", defaultValue = "25", description = "incast link rate (default ${DEFAULT-VALUE})")
    double incastGbps;

    @Range(min = 1, max = 62)
    @Option(names = "--senders", defaultValue = "8", description = "incast senders (default ${DEFAULT-VALUE})")
    int senders;

    @Range(min = 0.001, max = 100_000)
    @Option(names = "--ms", defaultValue = "100", description = "measured simulated milliseconds (default ${DEFAULT-VALUE})")
    double ms;

    @Range(min = 0, max = 100_000)
    @Option(names = "--warmup-ms", defaultValue = "20", description = "unmeasured simulated milliseconds first (default ${DEFAULT-VALUE})")
    double warmupMs;

    @Override
    public Integer call() throws Exception {
        common.print(spec, Speed.run(new Speed.Options((long) (pathGbps * 1e9), (long) (incastGbps * 1e9), senders,
                (long) (ms * 1e6), (long) (warmupMs * 1e6), common.seed)));
        return 0;
    }
}
