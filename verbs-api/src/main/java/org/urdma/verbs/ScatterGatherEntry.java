package org.urdma.verbs;

/** One scatter/gather element: {@code length} bytes at virtual address {@code addr} of the region with {@code lkey}. */
public final class ScatterGatherEntry {
    private long addr;
    private int length;
    private int lkey;

    public ScatterGatherEntry() {}

    public ScatterGatherEntry(long addr, int length, int lkey) {
        set(addr, length, lkey);
    }

    /** Fills this entry; {@code length} must be non-negative. */
    public ScatterGatherEntry set(long addr, int length, int lkey) {
        if (length < 0) throw new IllegalArgumentException("sge.length: must be >= 0, was " + length);
        this.addr = addr;
        this.length = length;
        this.lkey = lkey;
        return this;
    }

    /** An entry covering {@code length} bytes at {@code offset} inside a memory region. */
    public ScatterGatherEntry set(MemoryRegion mr, long offset, int length) {
        return set(mr.address() + offset, length, mr.lkey());
    }

    public long addr() { return addr; }
    public int length() { return length; }
    public int lkey() { return lkey; }

    @Override
    public String toString() {
        return "sge[addr=0x" + Long.toHexString(addr) + ", len=" + length + ", lkey=0x" + Integer.toHexString(lkey) + "]";
    }
}
