package org.urdma.express.session;

import java.lang.foreign.MemorySegment;
import org.urdma.verbs.MemoryRegion;
import org.urdma.verbs.ProtectionDomain;

/** Staging memory of a transport without a device (kernel TCP): a region in name only, its rkey what the peer's writes name. */
final class PlainRegion implements MemoryRegion {
    private final MemorySegment segment;
    private final int access;
    private final int rkey;
    private volatile boolean valid = true;

    PlainRegion(MemorySegment segment, int access, int rkey) {
        this.segment = segment;
        this.access = access;
        this.rkey = rkey;
    }

    @Override
    public long address() {
        return segment.address();
    }

    @Override
    public long length() {
        return segment.byteSize();
    }

    @Override
    public int lkey() {
        return rkey;
    }

    @Override
    public int rkey() {
        return rkey;
    }

    @Override
    public int access() {
        return access;
    }

    @Override
    public MemorySegment segment() {
        return segment;
    }

    @Override
    public ProtectionDomain pd() {
        return null;
    }

    @Override
    public boolean isValid() {
        return valid;
    }

    @Override
    public void deregister() {
        valid = false;
    }
}
