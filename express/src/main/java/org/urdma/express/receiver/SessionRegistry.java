package org.urdma.express.receiver;

import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The server's running sessions by copy: a rerun of the same copy (a reconnect after a cut link, or the same command
 * after a crash) ends the earlier session first and waits for it, so two sessions never write one part file.
 */
final class SessionRegistry {
    record Running(AtomicBoolean killed, Thread thread) {
    }

    private final ConcurrentHashMap<Long, Running> byCopy = new ConcurrentHashMap<>();
    /** The server is closing: a session that has not begun (no HELLO or PULL yet) ends at once, it has nothing to keep. */
    private volatile boolean closing;

    void closing() {
        closing = true;
    }

    boolean isClosing() {
        return closing;
    }

    /** Registers this thread's session for {@code copyId}, ending and awaiting the one it replaces. */
    void takeOver(long copyId, AtomicBoolean killed) {
        Running mine = new Running(killed, Thread.currentThread());
        Running old = byCopy.put(copyId, mine);
        if (old == null || old.thread() == Thread.currentThread()) return;
        old.killed().set(true);
        try {
            old.thread().join(30_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    void ended(long copyId, AtomicBoolean killed) {
        byCopy.computeIfPresent(copyId, (k, r) -> r.killed() == killed ? null : r);
    }
}
