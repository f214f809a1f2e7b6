package org.urdma.cli;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.urdma.transport.counters.EngineCounters;
import org.urdma.transport.counters.StatDirectory;
import org.urdma.transport.driver.MemoryFabric;
import org.urdma.transport.engine.DeviceConfig;
import org.urdma.transport.journal.EventJournal;
import org.urdma.transport.journal.Journal;

/**
 * A command's engine counters and journal, as its {@code --counters [DIR]} and {@code --journal [DIR]} ask (null: not
 * given; empty: given without DIR). Engines always count (the counters cost the same in memory or in a mapped file);
 * {@code --counters} publishes them in a file that {@code urdma stat} reads live. The journal is off unless asked for:
 * a benchmark measures the engine, not its log. Closed after the engines have stopped.
 */
public final class EngineTelemetry implements MemoryFabric.Telemetry, AutoCloseable {
    private final Path countersDir;
    private final Journal journal;
    private final List<EngineCounters> opened = new ArrayList<>();

    /** {@code name}: the journal's default directory is named after it. */
    public EngineTelemetry(String counters, String journal, String name) {
        countersDir = counters == null ? null : counters.isEmpty() ? StatDirectory.forWriting() : Path.of(counters);
        this.journal = journal == null ? null
                : Journal.open(journal.isEmpty() ? Journal.defaultDir(name) : Path.of(journal)).start();
    }

    @Override
    public EngineCounters counters(DeviceConfig config) {
        if (countersDir == null) return null;
        EngineCounters c = EngineCounters.open(countersDir, config.name(), EngineCounters.DEFAULT_MAX_QPS);
        opened.add(c);
        return c;
    }

    /** Counters for a device made outside a fabric (a two-process run): the file, or in memory. */
    public EngineCounters countersOf(DeviceConfig config) {
        EngineCounters c = counters(config);
        return c != null ? c : EngineCounters.inMemory(config.name());
    }

    @Override
    public EventJournal journal(DeviceConfig config, EngineCounters counters) {
        return journal == null ? EventJournal.NONE : journal.device(config.name(), counters);
    }

    /** Header lines saying where the counters and the journal are, or none. */
    public List<String> describe() {
        List<String> out = new ArrayList<>();
        for (EngineCounters c : opened) out.add(" Counters        : " + c.path() + "  (urdma stat --name " + c.device() + ")");
        if (journal != null) out.add(" Journal         : " + journal.dir() + "  (urdma journal " + journal.dir() + ")");
        return out;
    }

    @Override
    public void close() {
        if (journal != null) journal.close();
        for (EngineCounters c : opened) c.close();
    }
}
