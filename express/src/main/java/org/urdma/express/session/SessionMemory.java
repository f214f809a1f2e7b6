package org.urdma.express.session;

import java.lang.foreign.Arena;
import java.util.ArrayList;
import java.util.List;
import org.urdma.verbs.MemoryRegion;
import org.urdma.verbs.ProtectionDomain;

/**
 * The registered memory of one session, freed when the session ends: a long-running server would otherwise keep
 * every past session's staging ring until its device closes.
 */
public final class SessionMemory implements AutoCloseable {
    private final ProtectionDomain pd;
    private final Arena arena = Arena.ofShared();
    private final List<MemoryRegion> regions = new ArrayList<>();

    public SessionMemory(ProtectionDomain pd) {
        this.pd = pd;
    }

    /** {@return zeroed, page-aligned memory of {@code bytes}, registered with {@code access}} */
    public synchronized MemoryRegion register(long bytes, int access) {
        MemoryRegion r = pd.registerMemory(arena.allocate(bytes, 4096), access);
        regions.add(r);
        return r;
    }

    /** Frees the regions; a second call does nothing (a session and its owner may both close it). */
    @Override
    public synchronized void close() {
        if (!arena.scope().isAlive()) return;
        for (MemoryRegion r : regions) {
            try {
                r.deregister();
            } catch (RuntimeException ignored) {
                // the device closed first and took its regions with it
            }
        }
        regions.clear();
        arena.close();
    }
}
