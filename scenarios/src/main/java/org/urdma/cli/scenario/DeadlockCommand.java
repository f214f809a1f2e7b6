package org.urdma.cli.scenario;

import java.util.concurrent.Callable;
import org.urdma.cli.Range;
import org.urdma.scenario.world.Deadlock;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code urdma scenario deadlock}. */
@Command(name = "deadlock", mixinStandardHelpOptions = true,
    description = "PFC deadlock in a three-switch ring of real RC QPs, without and with the PFC watchdog.")
public final class DeadlockCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Mixin
    ScenarioCommand.Common common;

    @Range(min = 1, max = 1 << 30)
    @Option(names = {"-s", "--size"}, defaultValue = "65536", description = "message bytes (default ${DEFAULT-VALUE})")
    int size;

    @Range(min = 1, max = 1_000_000)
    @Option(names = {"-n", "--messages"}, defaultValue = "16", description = "messages per host (default ${DEFAULT-VALUE})")
    int messages;

    @Range(min = 0.001, max = 10_000)
    @Option(names = "--detection-ms", defaultValue = "1", description = "watchdog detection time (default ${DEFAULT-VALUE})")
    double detectionMs;

    @Range(min = 0.001, max = 10_000)
    @Option(names = "--restoration-ms", defaultValue = "2", description = "watchdog restoration time (default ${DEFAULT-VALUE})")
    double restorationMs;

    @Range(min = 0.001, max = 10_000)
    @Option(names = "--ms", defaultValue = "100", description = "simulated milliseconds at most (default ${DEFAULT-VALUE})")
    double ms;

    @Override
    public Integer call() throws Exception {
        common.print(spec, Deadlock.run(new Deadlock.Options(10_000_000_000L, size, messages, (long) (detectionMs * 1e6),
                (long) (restorationMs * 1e6), (long) (ms * 1e6), common.seed)));
        return 0;
    }
}
