package org.urdma.cli.scenario;

import java.util.concurrent.Callable;
import org.urdma.cli.Range;
import org.urdma.scenario.world.LongPath;
import org.urdma.scenario.world.Speed;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
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

    @Range(min = 0, max = 1000)
    @Option(names = "--rtt-ms", defaultValue = "0", description = "instead: one long path at --path-gbps with this RTT, "
        + "go-back-N RC WRITE with the whole bandwidth-delay product in flight, run for --ms (e.g. 80; default off)")
    double rttMs;

    @Option(names = "--described", description = "without --rtt-ms: frames describe payloads from pattern memory "
        + "instead of carrying the bytes (the engine and its checks are the same; default: payload bytes)")
    boolean described;

    @Option(names = "--payload-bytes", description = "with --rtt-ms: frames carry the payload bytes and memory is real "
        + "(default: described payloads and pattern memory, which fit 1 GB in flight in a small heap)")
    boolean payloadBytes;

    @Override
    public Integer call() throws Exception {
        if (rttMs > 0 && described) {
            throw new ParameterException(spec.commandLine(), "--described: a --rtt-ms path describes payloads already");
        }
        if (rttMs == 0 && payloadBytes) {
            throw new ParameterException(spec.commandLine(), "--payload-bytes: only with --rtt-ms (the short paths carry bytes)");
        }
        if (rttMs > 0) {
            common.print(spec, LongPath.table(new LongPath.Options((long) (pathGbps * 1e9), (long) (rttMs * 1e6),
                    (long) (ms * 1e6), !payloadBytes, common.seed)));
            return 0;
        }
        common.print(spec, Speed.run(new Speed.Options((long) (pathGbps * 1e9), (long) (incastGbps * 1e9), senders,
                (long) (ms * 1e6), (long) (warmupMs * 1e6), described, common.seed)));
        return 0;
    }
}
