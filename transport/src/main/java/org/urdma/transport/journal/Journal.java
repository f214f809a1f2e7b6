package org.urdma.transport.journal;

import net.openhft.chronicle.queue.ChronicleQueue;
import net.openhft.chronicle.queue.impl.single.SingleChronicleQueueBuilder;
import org.agrona.BitUtil;
import org.agrona.BufferUtil;
import org.agrona.concurrent.AgentRunner;
import org.agrona.concurrent.BackoffIdleStrategy;
import org.agrona.concurrent.UnsafeBuffer;
import org.agrona.concurrent.ringbuffer.ManyToOneRingBuffer;
import org.agrona.concurrent.ringbuffer.RingBufferDescriptor;
import org.agrona.concurrent.status.AtomicCounter;
import org.urdma.transport.counters.Counter;
import org.urdma.transport.counters.EngineCounters;
import org.urdma.transport.counters.StatDirectory;

import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

/**
 * An event journal: a ring buffer that engines write fixed-size records into ({@link EventJournal}, one per
 * device), and a {@link JournalAgent} that drains it into a Chronicle Queue directory that {@code urdma
 * journal} reads ({@link JournalReader}), live or afterwards. One journal may serve several devices of a
 * process. The queue stays after {@link #close} (it is the record of the run); delete it with {@code rm -r}.
 */
public final class Journal implements AutoCloseable {
    /** 1 MiB: about 26 000 events between two drains. */
    public static final int DEFAULT_RING_CAPACITY = 1 << 20;
    public static final String SUFFIX = ".journal";
    /** The smallest ring: room for eight records, one of them the largest message the ring takes. */
    public static final int MIN_RING_CAPACITY = 512;
    /** Queue file growth step (Chronicle's default is far larger than a journal needs). */
    private static final long BLOCK_SIZE = 1 << 22;

    private final Path dir;
    private final ManyToOneRingBuffer ring;
    private final ChronicleQueue queue;
    private final List<String> devices = new CopyOnWriteArrayList<>();
    private final List<EventJournal> journals = new CopyOnWriteArrayList<>();
    private final JournalAgent agent;
    private AgentRunner runner;
    private boolean closed;

    private Journal(Path dir, int ringCapacity) {
        this.dir = dir;
        this.ring = new ManyToOneRingBuffer(new UnsafeBuffer(BufferUtil.allocateDirectAligned(
            ringCapacity + RingBufferDescriptor.TRAILER_LENGTH, BitUtil.CACHE_LINE_LENGTH)));
        this.queue = SingleChronicleQueueBuilder.binary(dir).blockSize(BLOCK_SIZE).build();
        this.agent = new JournalAgent(ring, queue, devices, journals);
    }

    /** A journal in {@code dir} (created, or appended to) with a ring of {@link #DEFAULT_RING_CAPACITY}. */
    public static Journal open(Path dir) {
        return open(dir, DEFAULT_RING_CAPACITY);
    }

    /**
     * {@code ringCapacity}: a power of two, at least {@link #MIN_RING_CAPACITY} bytes (a record takes 40, and Agrona's
     * ring takes a message of at most an eighth of its capacity; a smaller ring would refuse every record by throwing).
     */
    public static Journal open(Path dir, int ringCapacity) {
        if (ringCapacity < MIN_RING_CAPACITY || !BitUtil.isPowerOfTwo(ringCapacity)) {
            throw new IllegalArgumentException("ring capacity: must be a power of two >= " + MIN_RING_CAPACITY + ", was "
                + ringCapacity);
        }
        return new Journal(dir, ringCapacity);
    }

    /** Where a journal named {@code name} of this process goes: {@code engine-NAME-PID.journal} beside the counters files. */
    public static Path defaultDir(String name) {
        return StatDirectory.forWriting().resolve(EngineCounters.FILE_PREFIX + name.replaceAll("[^A-Za-z0-9_.-]", "_")
            + "-" + ProcessHandle.current().pid() + SUFFIX);
    }

    /** A device's writer; its lost events count in {@code counters}' {@code journal_events_lost}. */
    public EventJournal device(String name, EngineCounters counters) {
        return device(name, counters.counter(Counter.JOURNAL_EVENTS_LOST));
    }

    /** A device's writer; {@code lost} null: a lost counter of its own. Not on the engine's hot path. */
    public synchronized EventJournal device(String name, AtomicCounter lost) {
        EventJournal j = new EventJournal(ring, devices.size(), lost != null ? lost : EventJournal.ownLostCounter());
        devices.add(name);
        journals.add(j);
        return j;
    }

    public Path dir() {
        return dir;
    }

    public int ringCapacity() {
        return ring.capacity();
    }

    /** For a caller that drives the agent itself (tests, a simulation's driver); else see {@link #start}. */
    public JournalAgent agent() {
        return agent;
    }

    /** Runs the agent on a daemon thread of its own, idling up to 1 ms between drains. */
    public synchronized Journal start() {
        if (runner == null) {
            runner = new AgentRunner(new BackoffIdleStrategy(10, 20, TimeUnit.MICROSECONDS.toNanos(10),
                TimeUnit.MILLISECONDS.toNanos(1)), Throwable::printStackTrace, null, agent);
            Thread t = new Thread(runner, "urdma-journal");
            t.setDaemon(true);
            t.start();
        }
        return this;
    }

    /** Stops the agent after it has drained what the ring holds, and closes the queue. */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        if (runner != null) {
            runner.close(); // the agent drains and closes its appender on its own thread (onClose)
        } else {
            agent.onClose();
        }
        queue.close();
    }
}
