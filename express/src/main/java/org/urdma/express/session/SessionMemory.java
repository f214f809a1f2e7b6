package org.urdma.express.session;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import org.urdma.verbs.AccessFlags;
import org.urdma.verbs.MemoryRegion;
import org.urdma.verbs.ProtectionDomain;

/**
 * The registered memory of one session, freed when the session ends: a long-running server would otherwise keep
 * every past session's staging ring until its device closes. Without a protection domain (a TCP session) the
 * regions are plain memory and {@link #remoteWritable} resolves the windows a peer's write names, as a device would.
 */
public final class SessionMemory implements AutoCloseable {
    private final ProtectionDomain pd;
    private final Arena arena = Arena.ofShared();
    private final List<MemoryRegion> regions = new ArrayList<>();
    private int nextKey = 0x5e55_0001;

    public SessionMemory(ProtectionDomain pd) {
        this.pd = pd;
    }

    /** {@return memory for a transport without a device: regions are plain memory} */
    public static SessionMemory plain() {
        return new SessionMemory(null);
    }

    /** {@return zeroed, page-aligned memory of {@code bytes}, registered with {@code access}} */
    public synchronized MemoryRegion register(long bytes, int access) {
        MemorySegment s = arena.allocate(bytes, 4096);
        MemoryRegion r = pd != null ? pd.registerMemory(s, access) : new PlainRegion(s, access, nextKey++);
        regions.add(r);
        return r;
    }

    /**
     * {@return the bytes [address, address + length) of a remotely writable region with {@code rkey}, or null when no
     * region of this session holds them}
     */
    public synchronized MemorySegment remoteWritable(long address, long length, int rkey) {
        if (!arena.scope().isAlive()) return null;
        for (MemoryRegion r : regions) {
            if (r.rkey() != rkey || !r.isValid() || (r.access() & AccessFlags.REMOTE_WRITE) == 0) continue;
            long off = address - r.address();
            if (off >= 0 && length >= 0 && off + length <= r.length()) return r.segment().asSlice(off, length);
        }
        return null;
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
