package org.urdma.cli;

import picocli.CommandLine.Option;

/** {@code --counters [DIR]} and {@code --journal [DIR]} for a command that runs engines (copy, serve), as perf has them. */
public final class TelemetryOptions {
    @Option(names = "--counters", arity = "0..1", fallbackValue = "", paramLabel = "DIR",
            description = "Publish the engine counters (per device and QP) in a memory-mapped file in DIR (default: $URDMA_STAT_DIR or "
            + "/dev/shm/urdma-USER) that 'urdma stat' reads while the command runs")
    String counters;

    @Option(names = "--journal", arity = "0..1", fallbackValue = "", paramLabel = "DIR",
            description = "Journal engine events (QP states, retransmissions and why, NAKs, drops) into the Chronicle Queue DIR "
            + "(default: engine-DEV-PID.journal beside the counters files), read with 'urdma journal' afterwards too; off by default")
    String journal;

    /** {@return whether either option was given} */
    public boolean asked() {
        return counters != null || journal != null;
    }

    /** {@return the telemetry these options ask for, for devices named from {@code name}} */
    public EngineTelemetry open(String name) {
        return new EngineTelemetry(counters, journal, name);
    }
}
