package org.urdma.bench.telemetry;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;
import org.urdma.transport.counters.Counter;
import org.urdma.transport.counters.EngineCounters;
import org.urdma.transport.counters.QpCounters;
import org.urdma.transport.journal.EventJournal;
import org.urdma.transport.journal.Journal;
import org.urdma.transport.journal.RetransmitReason;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.concurrent.TimeUnit;

/**
 * What the engine pays per telemetry call: a QP counter add (QP row and device total, release stores into a
 * mapped counters file), a journal event into the ring while the journal agent drains it into Chronicle
 * Queue on its own thread (the event is lost instead when the agent falls behind; {@code lost} says how
 * often), and the same call on {@link EventJournal#NONE}.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class TelemetryBenchmark {
    private Path dir;
    private EngineCounters counters;
    private QpCounters qp;
    private Journal journal;
    private EventJournal events;
    private int psn;

    @Setup(Level.Trial)
    public void setup() throws Exception {
        dir = Files.createTempDirectory("urdma-telemetry-bench");
        counters = EngineCounters.open(dir, "bench0", 16);
        qp = counters.qp(17);
        journal = Journal.open(dir.resolve("bench" + Journal.SUFFIX)).start();
        events = journal.device("bench0", counters);
    }

    @TearDown(Level.Trial)
    public void tearDown() throws Exception {
        journal.close();
        System.out.printf("%n[journal: %d events lost of the ring's %d bytes]%n", events.lost(), journal.ringCapacity());
        counters.close();
        try (var paths = Files.walk(dir)) {
            paths.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        }
    }

    @Benchmark
    public void qpCounterAdd() {
        qp.add(Counter.SENT_PKTS, 1);
    }

    @Benchmark
    public void journalRetransmit() {
        events.retransmit(psn, 17, psn++, 1, RetransmitReason.TIMEOUT);
    }

    @Benchmark
    public void journalNone() {
        EventJournal.NONE.retransmit(psn, 17, psn++, 1, RetransmitReason.TIMEOUT);
    }
}
