package org.urdma.cli.scenario;

import java.util.concurrent.Callable;
import org.urdma.cli.Range;
import org.urdma.scenario.world.Livelock;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code urdma scenario livelock}. */
@Command(name = "livelock", mixinStandardHelpOptions = true,
    description = "SIGCOMM 2016 livelock: RC WRITEs through a switch dropping 1/256 of packets, go-back-0 vs go-back-N.")
public final class LivelockCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Mixin
    ScenarioCommand.Common common;

    @Range(min = 1, max = 1 << 30)
    @Option(names = {"-s", "--size"}, defaultValue = "4194304", description = "message bytes (default ${DEFAULT-VALUE})")
    int size;

    @Range(min = 0.001, max = 10_000)
    @Option(names = "--ms", defaultValue = "50", description = "simulated milliseconds per policy (default ${DEFAULT-VALUE})")
    double ms;

    @Range(min = 0.1, max = 400)
    @Option(names = "--gbps", defaultValue = "10", description = "link rate in Gbit/s (default ${DEFAULT-VALUE})")
    double gbps;

    @Range(min = 2, max = 1_000_000)
    @Option(names = "--one-in", defaultValue = "256", description = "the switch drops one packet in this many (default ${DEFAULT-VALUE})")
    int oneIn;

    @Override
    public Integer call() throws Exception {
        common.print(spec, Livelock.run(new Livelock.Options((long) (gbps * 1e9), size, (long) (ms * 1e6), 1.0 / oneIn,
                common.seed)));
        return 0;
    }
}
