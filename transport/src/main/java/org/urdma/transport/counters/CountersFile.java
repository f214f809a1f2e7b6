package org.urdma.transport.counters;

import org.agrona.BitUtil;
import org.agrona.IoUtil;
import org.agrona.concurrent.UnsafeBuffer;
import org.agrona.concurrent.status.CountersManager;
import org.agrona.concurrent.status.CountersReader;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.MappedByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;

/**
 * A running switch's or engine's counters in a memory-mapped file, the way Aeron's CnC file carries its
 * counters: a small header (who writes it, since when, whether it still runs), then Agrona counter metadata
 * (labels) and values. The writer stores values with ordered stores from its own thread; {@code urdma stat}
 * maps the same file and reads them with a {@link CountersReader} while the writer runs. Switches
 * ({@code SwitchCounters}) and engines ({@link EngineCounters}) tell their counters apart by type id.
 *
 * <p>Header (little-endian): magic, version, pid, start time (epoch ms), heartbeat (epoch ms, refreshed
 * about once a second while running), state, metadata and values lengths, a one-line description.
 */
public final class CountersFile implements AutoCloseable {
    public static final String SUFFIX = ".counters";
    static final int MAGIC = 0x5453_5255; // "URST"
    static final int VERSION = 1;
    private static final int MAGIC_AT = 0;
    private static final int VERSION_AT = 4;
    /** Header offset of the writer's pid (tests forge a dead writer with it). */
    public static final int PID_AT = 8;
    private static final int START_AT = 16;
    private static final int HEARTBEAT_AT = 24;
    private static final int STATE_AT = 32;
    private static final int METADATA_LENGTH_AT = 36;
    private static final int VALUES_LENGTH_AT = 40;
    private static final int DESCRIPTION_LENGTH_AT = 44;
    private static final int DESCRIPTION_AT = 48;
    private static final int DESCRIPTION_MAX = 4096 - DESCRIPTION_AT;
    static final int HEADER_LENGTH = 4096;

    /** Whether the writer still runs (as it last said: a killed writer stays RUNNING; see {@link Snapshot#alive()}). */
    public enum State { STARTING, RUNNING, STOPPED }

    private final Path path;
    private final MappedByteBuffer mapped;
    private final UnsafeBuffer header;
    private final CountersManager manager;
    private boolean closed;

    private CountersFile(Path path, MappedByteBuffer mapped, int metadataLength, int valuesLength) {
        this.path = path;
        this.mapped = mapped;
        this.header = new UnsafeBuffer(mapped, 0, HEADER_LENGTH);
        this.manager = new CountersManager(new UnsafeBuffer(mapped, HEADER_LENGTH, metadataLength),
            new UnsafeBuffer(mapped, HEADER_LENGTH + metadataLength, valuesLength));
    }

    /**
     * Creates (or replaces a stopped or dead writer's) counters file with room for {@code counters}
     * counters; refuses to replace the file of a process that is still running.
     */
    public static CountersFile create(Path path, int counters, String description) {
        try {
            Path dir = path.toAbsolutePath().getParent();
            if (!Files.isDirectory(dir)) {
                Files.createDirectories(dir);
                try {
                    Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwxr-xr-x"));
                } catch (IOException | UnsupportedOperationException ignored) {
                    // readable by others is a convenience (a user's urdma stat of root's switch), not a need
                }
            }
            if (Files.exists(path)) {
                try {
                    Snapshot old = read(path);
                    if (old.alive() && old.pid() != ProcessHandle.current().pid()) {
                        throw new IllegalStateException("counters file " + path + " belongs to running process "
                            + old.pid() + " (" + old.description() + "); stop it first");
                    }
                    old.close();
                } catch (IllegalArgumentException notOurs) {
                    // unreadable or truncated: replace it
                }
                Files.delete(path);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot prepare counters file " + path, e);
        }
        int valuesLength = BitUtil.findNextPositivePowerOfTwo(Math.max(1, counters) * CountersReader.COUNTER_LENGTH);
        int metadataLength = valuesLength * (CountersReader.METADATA_LENGTH / CountersReader.COUNTER_LENGTH);
        MappedByteBuffer mapped = IoUtil.mapNewFile(path.toFile(), (long) HEADER_LENGTH + metadataLength + valuesLength);
        try {
            Files.setPosixFilePermissions(path, PosixFilePermissions.fromString("rw-r--r--"));
        } catch (IOException | UnsupportedOperationException ignored) {
            // as above
        }
        CountersFile f = new CountersFile(path, mapped, metadataLength, valuesLength);
        UnsafeBuffer h = f.header;
        byte[] text = description.getBytes(StandardCharsets.UTF_8);
        int n = Math.min(text.length, DESCRIPTION_MAX);
        h.putBytes(DESCRIPTION_AT, text, 0, n);
        h.putInt(DESCRIPTION_LENGTH_AT, n);
        h.putLong(PID_AT, ProcessHandle.current().pid());
        long now = System.currentTimeMillis();
        h.putLong(START_AT, now);
        h.putLong(HEARTBEAT_AT, now);
        h.putInt(METADATA_LENGTH_AT, metadataLength);
        h.putInt(VALUES_LENGTH_AT, valuesLength);
        h.putInt(STATE_AT, State.STARTING.ordinal());
        h.putInt(VERSION_AT, VERSION);
        h.putIntRelease(MAGIC_AT, MAGIC); // last: a reader that sees the magic sees a whole header
        return f;
    }

    public Path path() {
        return path;
    }

    /** Where the writer registers its counters. */
    public CountersManager manager() {
        return manager;
    }

    /** Now running (counters registered); also refreshes the heartbeat. */
    public void running() {
        header.putIntRelease(STATE_AT, State.RUNNING.ordinal());
        heartbeat();
    }

    public void heartbeat() {
        header.putLongRelease(HEARTBEAT_AT, System.currentTimeMillis());
    }

    /** The writer stopped; the last values stay readable until the file is replaced or deleted. */
    public void stopped() {
        heartbeat();
        header.putIntRelease(STATE_AT, State.STOPPED.ordinal());
    }

    @Override
    public void close() {
        if (!closed) {
            closed = true;
            stopped();
            mapped.force();
            IoUtil.unmap(mapped);
        }
    }

    /**
     * Marks the file stopped and deletes it, leaving the mapping to the garbage collector: unlike
     * {@link #close}, safe while another thread may still write a counter.
     */
    public void delete() {
        if (!closed) {
            closed = true;
            stopped();
            try {
                Files.deleteIfExists(path);
            } catch (IOException e) {
                throw new UncheckedIOException("cannot delete " + path, e);
            }
        }
    }

    /** Maps an existing counters file for reading. */
    public static Snapshot read(Path path) {
        MappedByteBuffer m;
        try {
            long size = Files.size(path);
            if (size < HEADER_LENGTH) {
                throw new IllegalArgumentException(path + ": not a urdma counters file (" + size + " bytes)");
            }
            m = IoUtil.mapExistingFile(path.toFile(), java.nio.channels.FileChannel.MapMode.READ_ONLY, "counters");
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + path, e);
        }
        UnsafeBuffer h = new UnsafeBuffer(m, 0, HEADER_LENGTH);
        if (h.getIntAcquire(MAGIC_AT) != MAGIC || h.getInt(VERSION_AT) != VERSION) {
            IoUtil.unmap(m);
            throw new IllegalArgumentException(path + ": not a urdma counters file (or written by another version)");
        }
        int metadataLength = h.getInt(METADATA_LENGTH_AT);
        int valuesLength = h.getInt(VALUES_LENGTH_AT);
        if ((long) HEADER_LENGTH + metadataLength + valuesLength > m.capacity()) {
            IoUtil.unmap(m);
            throw new IllegalArgumentException(path + ": truncated counters file");
        }
        return new Snapshot(path, m, h, new CountersReader(new UnsafeBuffer(m, HEADER_LENGTH, metadataLength),
            new UnsafeBuffer(m, HEADER_LENGTH + metadataLength, valuesLength)));
    }

    /** A reader's view of a counters file (live: values change as the writer runs). */
    public static final class Snapshot implements AutoCloseable {
        private final Path path;
        private final MappedByteBuffer mapped;
        private final UnsafeBuffer header;
        private final CountersReader reader;

        Snapshot(Path path, MappedByteBuffer mapped, UnsafeBuffer header, CountersReader reader) {
            this.path = path;
            this.mapped = mapped;
            this.header = header;
            this.reader = reader;
        }

        public Path path() {
            return path;
        }

        public CountersReader reader() {
            return reader;
        }

        public long pid() {
            return header.getLong(PID_AT);
        }

        public long startEpochMs() {
            return header.getLong(START_AT);
        }

        public long heartbeatEpochMs() {
            return header.getLongAcquire(HEARTBEAT_AT);
        }

        public State state() {
            int s = header.getIntAcquire(STATE_AT);
            return s >= 0 && s < State.values().length ? State.values()[s] : State.STOPPED;
        }

        /** Said it runs, and its process is alive. */
        public boolean alive() {
            return state() != State.STOPPED && ProcessHandle.of(pid()).map(ProcessHandle::isAlive).orElse(false);
        }

        public String description() {
            int n = Math.min(header.getInt(DESCRIPTION_LENGTH_AT), DESCRIPTION_MAX);
            return header.getStringWithoutLengthUtf8(DESCRIPTION_AT, Math.max(0, n));
        }

        @Override
        public void close() {
            IoUtil.unmap(mapped);
        }
    }
}
