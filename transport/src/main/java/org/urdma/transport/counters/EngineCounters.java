package org.urdma.transport.counters;

import org.agrona.BitUtil;
import org.agrona.BufferUtil;
import org.agrona.concurrent.UnsafeBuffer;
import org.agrona.concurrent.status.AtomicCounter;
import org.agrona.concurrent.status.CountersManager;
import org.agrona.concurrent.status.CountersReader;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * One device's engine counters (see {@link Counter}) in an Agrona {@link CountersManager}: device totals,
 * per-priority rows, and per-QP rows allocated by {@link #qp} and freed by {@link #release}. {@link #open}
 * puts them in a memory-mapped {@code engine-DEV-PID.counters} file in {@link StatDirectory} that
 * {@code urdma stat} reads live and that {@link #close} removes; {@link #inMemory} keeps them in process.
 *
 * <p>Single writer: every method but {@link #get} runs on the device's engine thread. Increments are a
 * plain read and a release store ({@link AtomicCounter#getAndAddRelease}): readers in other threads or
 * processes see whole values in order, the writer pays no locked instruction and allocates nothing.
 *
 * <p>Labels: {@code "DEV NAME"}, {@code "DEV NAME prio P"}, {@code "DEV qp QPN NAME"}; keys: QPN (-1 for
 * device rows), counter ordinal, priority (-1 for none), as three ints.
 */
public final class EngineCounters implements AutoCloseable {
    public static final int DEVICE_TYPE_ID = 6001;
    public static final int PRIORITY_TYPE_ID = 6002;
    public static final int QP_TYPE_ID = 6003;
    public static final String FILE_PREFIX = "engine-";
    /** Per-QP rows a counters file has room for; later QPs count in the device totals only. */
    public static final int DEFAULT_MAX_QPS = 256;
    /** In memory, fewer: tests and benchmarks make many devices and rarely read per-QP rows. */
    public static final int IN_MEMORY_MAX_QPS = 16;

    private static final Counter[] ALL = Counter.values();
    private static final int QP_COUNTERS = Counter.count(Counter.Scope.QP);
    /** Counters files open in this process: two devices of one name get two files. */
    private static final Set<Path> OPEN = ConcurrentHashMap.newKeySet();

    private final String device;
    private final CountersFile file;
    private final CountersManager manager;
    private final AtomicCounter[] totals = new AtomicCounter[ALL.length];
    private final AtomicCounter[][] perPriority = new AtomicCounter[ALL.length][];
    private boolean closed;

    private EngineCounters(String device, CountersFile file, CountersManager manager) {
        this.device = device.replaceAll("\\s", "_");
        this.file = file;
        this.manager = manager;
        for (Counter c : ALL) {
            totals[c.ordinal()] = allocate(DEVICE_TYPE_ID, this.device + " " + c.label(), -1, c, -1);
            if (c.scope() == Counter.Scope.PRIORITY) {
                perPriority[c.ordinal()] = new AtomicCounter[Counter.PRIORITIES];
                for (int p = 0; p < Counter.PRIORITIES; p++) {
                    perPriority[c.ordinal()][p] = allocate(PRIORITY_TYPE_ID, this.device + " " + c.label() + " prio " + p, -1, c, p);
                }
            }
        }
    }

    /** A counters file for {@code device} in {@link StatDirectory#forWriting()}, room for {@link #DEFAULT_MAX_QPS} QPs. */
    public static EngineCounters open(String device) {
        return open(StatDirectory.forWriting(), device, DEFAULT_MAX_QPS);
    }

    /**
     * A counters file {@code engine-DEVICE-PID.counters} in {@code dir} with per-QP rows for {@code maxQps}
     * QPs at a time. Files of engines whose process is gone are removed first.
     */
    public static EngineCounters open(Path dir, String device, int maxQps) {
        if (maxQps < 0) {
            throw new IllegalArgumentException("maxQps: must be >= 0, was " + maxQps);
        }
        removeDead(dir);
        String base = FILE_PREFIX + device.replaceAll("[^A-Za-z0-9_.-]", "_") + "-" + ProcessHandle.current().pid();
        Path path = dir.resolve(base + CountersFile.SUFFIX);
        for (int n = 2; !OPEN.add(path); n++) {
            path = dir.resolve(base + "-" + n + CountersFile.SUFFIX);
        }
        try {
            CountersFile f = CountersFile.create(path, capacity(maxQps), "engine " + device);
            EngineCounters c = new EngineCounters(device, f, f.manager());
            f.running();
            return c;
        } catch (RuntimeException e) {
            OPEN.remove(path);
            throw e;
        }
    }

    /** Counters in process memory only, room for {@link #IN_MEMORY_MAX_QPS} QPs. */
    public static EngineCounters inMemory(String device) {
        return inMemory(device, IN_MEMORY_MAX_QPS);
    }

    public static EngineCounters inMemory(String device, int maxQps) {
        int valuesLength = BitUtil.findNextPositivePowerOfTwo(capacity(maxQps) * CountersReader.COUNTER_LENGTH);
        int metadataLength = valuesLength * (CountersReader.METADATA_LENGTH / CountersReader.COUNTER_LENGTH);
        return new EngineCounters(device, null, new CountersManager(
            new UnsafeBuffer(BufferUtil.allocateDirectAligned(metadataLength, BitUtil.CACHE_LINE_LENGTH)),
            new UnsafeBuffer(BufferUtil.allocateDirectAligned(valuesLength, BitUtil.CACHE_LINE_LENGTH))));
    }

    private static int capacity(int maxQps) {
        return ALL.length + Counter.count(Counter.Scope.PRIORITY) * Counter.PRIORITIES + maxQps * QP_COUNTERS;
    }

    public String device() {
        return device;
    }

    /** The counters file, or null in memory. */
    public Path path() {
        return file == null ? null : file.path();
    }

    /**
     * The counters of a new QP: rows labelled with the device and QPN (zero at first), or, when the file has
     * no room left, a view that counts in the device totals only ({@code qp_counters_unavailable} + 1).
     */
    public QpCounters qp(int qpn) {
        AtomicCounter[] own = new AtomicCounter[ALL.length];
        if (manager.available() >= QP_COUNTERS) {
            int done = 0;
            try {
                for (Counter c : ALL) {
                    if (c.scope() == Counter.Scope.QP) {
                        own[c.ordinal()] = allocate(QP_TYPE_ID, device + " qp " + qpn + " " + c.label(), qpn, c, -1);
                        done++;
                    }
                }
            } catch (IllegalStateException full) {
                free(own);
                done = 0;
            }
            if (done == QP_COUNTERS) {
                return new QpCounters(qpn, own, totals, true);
            }
        }
        increment(Counter.QP_COUNTERS_UNAVAILABLE);
        return new QpCounters(qpn, unpublished(null), totals, false);
    }

    /**
     * The QP is destroyed: its rows are freed (their counts stay in the device totals). The QP keeps its last values
     * in process memory, so what it counted can still be read after it is gone.
     */
    public void release(QpCounters qp) {
        AtomicCounter[] kept = unpublished(qp.own);
        free(qp.own);
        System.arraycopy(kept, 0, qp.own, 0, kept.length);
    }

    /**
     * Rows of a QP's own in process memory only, not in the file (no room there, or the QP was released), starting
     * at {@code from}'s values (null: zero): the engine reads a QP's numbers from its counters whether published or not.
     */
    private static AtomicCounter[] unpublished(AtomicCounter[] from) {
        UnsafeBuffer values = new UnsafeBuffer(BufferUtil.allocateDirectAligned(QP_COUNTERS * CountersReader.COUNTER_LENGTH,
            BitUtil.CACHE_LINE_LENGTH));
        AtomicCounter[] own = new AtomicCounter[ALL.length];
        int id = 0;
        for (Counter c : ALL) {
            if (c.scope() == Counter.Scope.QP) {
                own[c.ordinal()] = new AtomicCounter(values, id++);
                if (from != null && from[c.ordinal()] != null) {
                    own[c.ordinal()].set(from[c.ordinal()].get());
                }
            }
        }
        return own;
    }

    public void add(Counter c, long n) {
        totals[c.ordinal()].getAndAddRelease(n);
    }

    public void increment(Counter c) {
        totals[c.ordinal()].getAndAddRelease(1);
    }

    /** A {@link Counter.Scope#PRIORITY} counter: the priority's row and the device total. */
    public void add(Counter c, int priority, long n) {
        perPriority[c.ordinal()][priority].getAndAddRelease(n);
        totals[c.ordinal()].getAndAddRelease(n);
    }

    /** The device total (for a QP counter: every QP's, including destroyed ones, plus device-level adds). */
    public long get(Counter c) {
        return totals[c.ordinal()].get();
    }

    public long get(Counter c, int priority) {
        AtomicCounter[] p = perPriority[c.ordinal()];
        if (p == null) {
            throw new IllegalArgumentException(c.label() + " is not counted per priority");
        }
        return p[priority].get();
    }

    /** The device-total counter itself, for a writer outside this class (e.g. the journal's lost events). */
    public AtomicCounter counter(Counter c) {
        return totals[c.ordinal()];
    }

    /**
     * Marks the file stopped and removes it. The mapping itself is left to the garbage collector, so a
     * counter still held by a late writer cannot touch unmapped memory.
     */
    @Override
    public void close() {
        if (!closed) {
            closed = true;
            if (file != null) {
                file.delete();
                OPEN.remove(file.path());
            }
        }
    }

    private AtomicCounter allocate(int typeId, String label, int qpn, Counter c, int priority) {
        return manager.newCounter(label, typeId, key -> {
            key.putInt(0, qpn);
            key.putInt(4, c.ordinal());
            key.putInt(8, priority);
        });
    }

    private static void free(AtomicCounter[] counters) {
        for (int i = 0; i < counters.length; i++) {
            if (counters[i] != null) {
                counters[i].close(); // frees the row in the manager
                counters[i] = null;
            }
        }
    }

    /** Removes the engine counters files of processes that are gone (killed before they could close). */
    private static void removeDead(Path dir) {
        if (!Files.isDirectory(dir)) {
            return;
        }
        try (DirectoryStream<Path> ds = Files.newDirectoryStream(dir, FILE_PREFIX + "*" + CountersFile.SUFFIX)) {
            for (Path p : ds) {
                boolean dead;
                try (CountersFile.Snapshot s = CountersFile.read(p)) {
                    dead = !s.alive() && s.pid() != ProcessHandle.current().pid();
                } catch (RuntimeException unreadable) {
                    continue; // not ours to judge
                }
                if (dead) {
                    Files.deleteIfExists(p);
                }
            }
        } catch (IOException ignored) {
            // leftovers are harmless: urdma stat shows them as not running
        }
    }
}
