package org.urdma.verbs;

/** A receive work request, reusable like {@link SendWorkRequest}. */
public final class ReceiveWorkRequest {
    public static final int MAX_SGE = 16;

    private long wrId;
    private final ScatterGatherEntry[] sg = new ScatterGatherEntry[MAX_SGE];
    private int numSge;

    public ReceiveWorkRequest() {
        for (int i = 0; i < MAX_SGE; i++) sg[i] = new ScatterGatherEntry();
    }

    public ReceiveWorkRequest reset() { wrId = 0; numSge = 0; return this; }
    public ReceiveWorkRequest wrId(long v) { wrId = v; return this; }
    public ReceiveWorkRequest addSge(long addr, int length, int lkey) {
        if (numSge == MAX_SGE) throw new IllegalArgumentException("numSge: at most " + MAX_SGE + " elements");
        sg[numSge++].set(addr, length, lkey);
        return this;
    }
    public ReceiveWorkRequest addSge(MemoryRegion mr, long offset, int length) {
        return addSge(mr.address() + offset, length, mr.lkey());
    }
    public ReceiveWorkRequest clearSge() { numSge = 0; return this; }

    public long wrId() { return wrId; }
    public int numSge() { return numSge; }
    public ScatterGatherEntry sge(int i) {
        if (i < 0 || i >= numSge) throw new IndexOutOfBoundsException("sge: index " + i + " not in [0, " + numSge + ")");
        return sg[i];
    }
}
