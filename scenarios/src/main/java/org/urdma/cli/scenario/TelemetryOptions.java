package org.urdma.cli.scenario;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.urdma.cli.Range;
import org.urdma.switchemu.world.telemetry.FabricTelemetry;
import picocli.CommandLine.Option;

/** The fabric telemetry's options of a simulated scenario ({@code scenario run}, {@code scenario fct}). */
final class TelemetryOptions {
    @Range(min = 0.001, max = 1_000_000)
    @Option(names = "--queue-sample-us", defaultValue = "10", description = "sample every switch queue this often, µs (default ${DEFAULT-VALUE})")
    double queueSampleUs;

    @Option(names = "--queue-series", description = "also write every queue's samples over time (queue_series.csv)")
    boolean queueSeries;

    FabricTelemetry.Options options() {
        return new FabricTelemetry.Options(Math.max(1, Math.round(queueSampleUs * 1e3)), queueSeries);
    }

    /** Writes {@code files} (name to contents) into {@code dir}, making it. */
    static void write(Path dir, Map<String, String> files) throws IOException {
        Files.createDirectories(dir);
        for (Map.Entry<String, String> f : files.entrySet()) Files.writeString(dir.resolve(f.getKey()), f.getValue());
    }
}
