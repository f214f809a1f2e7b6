package org.urdma.verbs;

/**
 * A send work request, reusable: fill it, post it, refill it. Posting copies it into the send queue,
 * so the object may be changed as soon as {@link QueuePair#postSend} returns.
 */
public final class SendWorkRequest {
    /** Most scatter/gather elements one request can carry. */
    public static final int MAX_SGE = 16;

    private long wrId;
    private WrOpcode opcode = WrOpcode.SEND;
    private int flags;
    private final ScatterGatherEntry[] sg = new ScatterGatherEntry[MAX_SGE];
    private int numSge;
    private int immData;
    private int invalidateRkey;
    private long remoteAddr;
    private int rkey;
    private long compareAdd;
    private long swap;
    private AddressHandle ah;
    private int remoteQpn;
    private int remoteQkey;
    private MemoryWindow bindMw;
    private int bindRkey;
    private MemoryRegion bindMr;
    private long bindAddr;
    private long bindLength;
    private int bindAccess;

    public SendWorkRequest() {
        for (int i = 0; i < MAX_SGE; i++) sg[i] = new ScatterGatherEntry();
    }

    /** Clears everything for reuse. */
    public SendWorkRequest reset() {
        wrId = 0; opcode = WrOpcode.SEND; flags = 0; numSge = 0; immData = 0; invalidateRkey = 0;
        remoteAddr = 0; rkey = 0; compareAdd = 0; swap = 0; ah = null; remoteQpn = 0; remoteQkey = 0;
        bindMw = null; bindRkey = 0; bindMr = null; bindAddr = 0; bindLength = 0; bindAccess = 0;
        return this;
    }

    public SendWorkRequest wrId(long v) { wrId = v; return this; }
    public SendWorkRequest opcode(WrOpcode v) {
        if (v == null) throw new IllegalArgumentException("opcode: must not be null");
        opcode = v; return this;
    }
    public SendWorkRequest flags(int v) {
        if ((v & ~SendFlags.ALL) != 0) throw new IllegalArgumentException("flags: unknown bits 0x" + Integer.toHexString(v & ~SendFlags.ALL));
        flags = v; return this;
    }
    /** Appends a scatter/gather element. */
    public SendWorkRequest addSge(long addr, int length, int lkey) {
        if (numSge == MAX_SGE) throw new IllegalArgumentException("numSge: at most " + MAX_SGE + " elements");
        sg[numSge++].set(addr, length, lkey);
        return this;
    }
    public SendWorkRequest addSge(MemoryRegion mr, long offset, int length) {
        return addSge(mr.address() + offset, length, mr.lkey());
    }
    public SendWorkRequest clearSge() { numSge = 0; return this; }
    public SendWorkRequest immData(int v) { immData = v; return this; }
    public SendWorkRequest invalidateRkey(int v) { invalidateRkey = v; return this; }
    /** Target of RDMA WRITE/READ and atomics. */
    public SendWorkRequest remote(long addr, int rkey) { remoteAddr = addr; this.rkey = rkey; return this; }
    /** Atomic operands: compare (CMP_AND_SWP) or add (FETCH_AND_ADD), and swap. */
    public SendWorkRequest atomic(long compareAdd, long swap) { this.compareAdd = compareAdd; this.swap = swap; return this; }
    /** UD destination. */
    public SendWorkRequest ud(AddressHandle ah, int remoteQpn, int remoteQkey) {
        this.ah = ah; this.remoteQpn = remoteQpn; this.remoteQkey = remoteQkey; return this;
    }
    /**
     * A {@link WrOpcode#BIND_MW} request's window, the rkey it is to have once bound (the index of {@code mw.rkey()}
     * with a key of the consumer's choice, e.g. {@link MemoryWindow#incRkey}), and the region, range and rights of
     * {@code bind} (its wrId and flags are not used: this request's own are).
     */
    public SendWorkRequest bindMw(MemoryWindow mw, int rkey, MwBind bind) {
        if (bind == null) throw new IllegalArgumentException("bind_mw.bind_info: must not be null");
        bindMw = mw; bindRkey = rkey; bindMr = bind.mr(); bindAddr = bind.addr(); bindLength = bind.length(); bindAccess = bind.access();
        return this;
    }

    public long wrId() { return wrId; }
    public WrOpcode opcode() { return opcode; }
    public int flags() { return flags; }
    public int numSge() { return numSge; }
    public ScatterGatherEntry sge(int i) {
        if (i < 0 || i >= numSge) throw new IndexOutOfBoundsException("sge: index " + i + " not in [0, " + numSge + ")");
        return sg[i];
    }
    public int immData() { return immData; }
    public int invalidateRkey() { return invalidateRkey; }
    public long remoteAddr() { return remoteAddr; }
    public int rkey() { return rkey; }
    public long compareAdd() { return compareAdd; }
    public long swap() { return swap; }
    public AddressHandle ah() { return ah; }
    public int remoteQpn() { return remoteQpn; }
    public int remoteQkey() { return remoteQkey; }
    public MemoryWindow bindMwWindow() { return bindMw; }
    public int bindRkey() { return bindRkey; }
    public MemoryRegion bindMr() { return bindMr; }
    public long bindAddr() { return bindAddr; }
    public long bindLength() { return bindLength; }
    public int bindAccess() { return bindAccess; }

    /** Total bytes over all SGEs. */
    public long totalLength() {
        long n = 0;
        for (int i = 0; i < numSge; i++) n += sg[i].length();
        return n;
    }
}
