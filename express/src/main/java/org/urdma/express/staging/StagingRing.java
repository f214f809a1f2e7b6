package org.urdma.express.staging;

import java.nio.ByteBuffer;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.urdma.express.session.SessionMemory;
import org.urdma.verbs.MemoryRegion;

/**
 * A bounded ring of staging windows in one registered region: what the I/O threads read files into and write them
 * from, and what RDMA WRITEs go from or into. Its size is the memory the side may use ({@code --mem}); a window is
 * taken before it is filled and given back only once every WRITE aimed at or from it completed.
 */
public final class StagingRing {
    private final MemoryRegion region;
    private final int slotSize;
    private final int slots;
    private final ArrayBlockingQueue<Integer> free;

    public StagingRing(SessionMemory memory, int slots, int slotSize, int access) {
        if (slots < 1) throw new IllegalArgumentException("--mem: room for at least one window of " + slotSize + " bytes");
        this.region = memory.register((long) slots * slotSize, access);
        this.slotSize = slotSize;
        this.slots = slots;
        this.free = new ArrayBlockingQueue<>(slots);
        for (int i = 0; i < slots; i++) free.add(i);
    }

    /** {@return how many windows fit in {@code mem} bytes (at least two, so one fills while one travels)} */
    public static int slotsFor(long mem, int slotSize) {
        long n = mem / slotSize;
        if (n < 2) throw new IllegalArgumentException("--mem: " + mem + " bytes holds fewer than two windows of " + slotSize + " bytes");
        return (int) Math.min(n, 4096);
    }

    public MemoryRegion region() {
        return region;
    }

    public int slotSize() {
        return slotSize;
    }

    public int slots() {
        return slots;
    }

    /** {@return the address of a window's first byte} */
    public long address(int slot) {
        return region.address() + (long) slot * slotSize;
    }

    /** {@return a free window, or -1 when none frees within the wait} */
    public int take(long waitNanos) throws InterruptedException {
        Integer s = free.poll(waitNanos, TimeUnit.NANOSECONDS);
        return s == null ? -1 : s;
    }

    public void give(int slot) {
        free.add(slot);
    }

    /** {@return the bytes [offset, offset+length) of a window as a buffer (position 0)} */
    public ByteBuffer view(int slot, int offset, int length) {
        if (offset < 0 || length < 0 || (long) offset + length > slotSize) {
            throw new IllegalArgumentException("window " + slot + ": bytes " + offset + "+" + length + " exceed its " + slotSize);
        }
        return region.segment().asSlice((long) slot * slotSize + offset, length).asByteBuffer();
    }
}
