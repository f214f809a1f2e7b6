package org.urdma.express.receiver;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;
import org.urdma.express.journal.PartFiles;
import org.urdma.express.protocol.Message;
import org.urdma.express.safety.SafePaths;
import org.urdma.express.staging.StagingRing;

/** What one receiving session's threads share: where it writes, the open files, and what goes back to the client. */
final class SessionState {
    final SafePaths safe;
    final Path destination;
    final PartFiles parts;
    final int blockSize;
    final int flags;
    final ReceiverHooks hooks;
    final StagingRing ring;
    final Map<Integer, IncomingFile> files = new ConcurrentHashMap<>();
    /** Directories with their modes and mtimes, applied at the end (deepest first) so writing inside does not change them. */
    final List<Message.Entry> directories = new CopyOnWriteArrayList<>();
    /** Messages the I/O threads produced for the control thread to send. */
    final Queue<Message> outbox = new ConcurrentLinkedQueue<>();
    final AtomicLong bytesWritten = new AtomicLong();
    final AtomicLong repaired = new AtomicLong();
    final AtomicLong hashesVerified = new AtomicLong();
    /** Entries named, entries and bytes verified in place, and one line per entry that failed: a pulling client's result. */
    final AtomicLong entriesSeen = new AtomicLong();
    final AtomicLong entriesVerified = new AtomicLong();
    final AtomicLong bytesVerified = new AtomicLong();
    final List<String> failures = new CopyOnWriteArrayList<>();
    /** Relative paths of every entry named (DELETE keeps them), files left alone because their target matched, entries deleted. */
    final java.util.Set<String> seen = ConcurrentHashMap.newKeySet();
    final AtomicLong skipped = new AtomicLong();
    final AtomicLong deleted = new AtomicLong();
    /** Names deletion leaves alone (the client's PROTECT). */
    volatile org.urdma.express.tree.Excludes protect = new org.urdma.express.tree.Excludes(List.of());
    final Runnable wake;

    SessionState(SafePaths safe, Path destination, int blockSize, int flags, ReceiverHooks hooks, StagingRing ring, Runnable wake) {
        this.safe = safe;
        this.destination = destination;
        this.parts = new PartFiles(destination);
        this.blockSize = blockSize;
        this.flags = flags;
        this.hooks = hooks;
        this.ring = ring;
        this.wake = wake;
    }

    /** An entry is done: counted, and the sender told. */
    void done(Message.Entry e, boolean verified, String reason) {
        if (verified) {
            entriesVerified.incrementAndGet();
            if (e.kind() == Message.Kind.FILE) bytesVerified.addAndGet(e.size());
        } else {
            failures.add(SafePaths.printable(e.path()) + ": " + reason);
        }
        reply(new Message.FileDone(e.id(), verified, reason));
    }

    void reply(Message m) {
        outbox.add(m);
        wake.run();
    }
}
