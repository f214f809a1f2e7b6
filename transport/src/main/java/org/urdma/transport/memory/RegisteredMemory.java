package org.urdma.transport.memory;

import java.lang.foreign.MemorySegment;
import org.agrona.concurrent.UnsafeBuffer;
import org.urdma.verbs.MemoryRegion;
import org.urdma.verbs.ProtectionDomain;

/** A registered memory region: the segment, its keys and rights, and an Agrona view for zero-copy access. */
public final class RegisteredMemory implements MemoryRegion {
    private final MemoryKeyTable table;
    private final ProtectionDomain pd;
    private final MemorySegment segment;
    private final long address;
    private final long length;
    private final int access;
    private final int lkey;
    private final int rkey;
    /** View of the whole region; index 0 is {@link #address()}. */
    final UnsafeBuffer view;
    private volatile boolean valid = true;
    /** Windows bound to the region (engine-written); while any is, it can be neither deregistered nor invalidated. */
    volatile int boundWindows;

    RegisteredMemory(MemoryKeyTable table, ProtectionDomain pd, MemorySegment segment, long iova, int access, int lkey,
                     int rkey) {
        this.table = table;
        this.pd = pd;
        this.segment = segment;
        this.address = iova;
        this.length = segment.byteSize();
        this.access = access;
        this.lkey = lkey;
        this.rkey = rkey;
        this.view = new UnsafeBuffer(segment.address(), (int) length);
    }

    @Override public long address() { return address; }
    @Override public long length() { return length; }
    @Override public int lkey() { return lkey; }
    @Override public int rkey() { return rkey; }
    @Override public int access() { return access; }
    @Override public MemorySegment segment() { return segment; }
    @Override public ProtectionDomain pd() { return pd; }
    @Override public boolean isValid() { return valid; }

    /** The region's bytes; offset 0 is {@link #address()}. */
    public UnsafeBuffer buffer() {
        return view;
    }

    /** Whether [va, va+len) lies inside the region (len 0 is allowed anywhere inside or at the end). */
    public boolean contains(long va, long len) {
        return len >= 0 && va >= address && va - address <= length - len;
    }

    /** Offset of {@code va} in {@link #buffer()}. */
    public int offsetOf(long va) {
        return (int) (va - address);
    }

    @Override
    public void deregister() {
        int bound = boundWindows;
        if (bound > 0) {
            throw new IllegalStateException("deregister: " + bound + " memory window(s) bound to " + this + "; unbind or deallocate them first");
        }
        table.deregister(this);
    }

    /** Whether the region is one of {@code t}'s (a device's own). */
    public boolean of(MemoryKeyTable t) {
        return table == t;
    }

    /** Memory windows bound to the region now. */
    public int boundWindows() {
        return boundWindows;
    }

    void invalidate() {
        valid = false;
    }

    @Override
    public String toString() {
        return "mr[0x" + Long.toHexString(address) + "+" + length + " lkey=0x" + Integer.toHexString(lkey) + "]";
    }
}
