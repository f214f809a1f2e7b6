package org.urdma.transport.journal;

import net.openhft.chronicle.bytes.Bytes;
import net.openhft.chronicle.queue.ChronicleQueue;
import net.openhft.chronicle.queue.ExcerptTailer;
import net.openhft.chronicle.queue.impl.single.SingleChronicleQueueBuilder;
import net.openhft.chronicle.wire.DocumentContext;
import org.urdma.transport.counters.StatDirectory;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;

/**
 * Reads a journal directory from its start, read-only (the writer may be running: {@link #poll} again for
 * what it wrote since). Device names come from the queue's DEVICE entries.
 */
public final class JournalReader implements AutoCloseable {
    /**
     * Which events to deliver: null/empty fields match everything. LOST entries pass the QP and type filters
     * (they say the listing has gaps); DEVICE entries are never delivered.
     */
    public record Filter(String device, Integer qpn, Set<EventType> types, long sinceEpochNs) {
        public static final Filter ALL = new Filter(null, null, null, Long.MIN_VALUE);

        boolean matches(JournalEvent e) {
            if (e.type() == EventType.DEVICE || e.epochNs() < sinceEpochNs || (device != null && !device.equals(e.device()))) {
                return false;
            }
            if (e.type() == EventType.LOST) {
                return true;
            }
            return (qpn == null || qpn == e.qpn()) && (types == null || types.isEmpty() || types.contains(e.type()));
        }
    }

    private final Path dir;
    private final ChronicleQueue queue;
    private final ExcerptTailer tailer;
    private final Map<Integer, String> names = new HashMap<>();

    private JournalReader(Path dir) {
        this.dir = dir;
        this.queue = SingleChronicleQueueBuilder.binary(dir).readOnly(true).build();
        this.tailer = queue.createTailer().toStart();
    }

    public static JournalReader open(Path dir) {
        if (!Files.isDirectory(dir)) {
            throw new IllegalArgumentException(dir + ": no such journal directory");
        }
        return new JournalReader(dir);
    }

    public Path dir() {
        return dir;
    }

    /** Delivers the matching events written since the last call; returns how many it delivered. */
    public int poll(Filter filter, Consumer<JournalEvent> out) {
        int n = 0;
        EventType[] types = EventType.values();
        while (true) {
            try (DocumentContext dc = tailer.readingDocument()) {
                if (!dc.isPresent()) {
                    return n;
                }
                Bytes<?> b = dc.wire().bytes();
                while (b.readRemaining() > 0) {
                    int t = b.readByte();
                    if (t < 0 || t >= types.length) {
                        break; // a newer writer's record: its length is unknown, skip the rest of the entry
                    }
                    EventType type = types[t];
                    long epochNs = b.readLong();
                    long timeNs = b.readLong();
                    int device = b.readInt();
                    int qpn = b.readInt();
                    int x = b.readInt();
                    int y = b.readInt();
                    int z = b.readInt();
                    if (type == EventType.DEVICE) {
                        names.put(device, b.readUtf8());
                    }
                    JournalEvent e = new JournalEvent(epochNs, timeNs, type, device,
                        names.getOrDefault(device, "dev#" + device), qpn, x, y, z);
                    if (filter.matches(e)) {
                        out.accept(e);
                        n++;
                    }
                }
            }
        }
    }

    /** Device names seen so far. */
    public Map<Integer, String> devices() {
        return Map.copyOf(names);
    }

    @Override
    public void close() {
        queue.close();
    }

    /** Journal directories ({@code *.journal}) in the directories {@code urdma stat} searches. */
    public static List<Path> find(List<Path> dirs) {
        List<Path> out = new ArrayList<>();
        for (Path d : dirs) {
            if (!Files.isDirectory(d)) {
                continue;
            }
            try (DirectoryStream<Path> ds = Files.newDirectoryStream(d, "*" + Journal.SUFFIX)) {
                for (Path p : ds) {
                    if (Files.isDirectory(p)) {
                        out.add(p);
                    }
                }
            } catch (IOException e) {
                throw new UncheckedIOException("cannot list " + d, e);
            }
        }
        out.sort(null);
        return out;
    }

    public static List<Path> find() {
        return find(StatDirectory.forReading());
    }
}
