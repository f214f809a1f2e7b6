package org.urdma.verbs;

/**
 * What a bind gives a window ({@code ibv_mw_bind} and its {@code ibv_mw_bind_info}): the region, the range
 * {@code [addr, addr+length)} inside it, the window's remote rights, and for {@link QueuePair#bindMw} the work request's
 * id and send flags. A length of 0 with no region unbinds a type 1 window. Reusable, like {@link SendWorkRequest}.
 */
public final class MwBind {
    private MemoryRegion mr;
    private long addr;
    private long length;
    private int access;
    private long wrId;
    private int flags;

    public MwBind mr(MemoryRegion v) { mr = v; return this; }
    public MwBind addr(long v) { addr = v; return this; }
    public MwBind length(long v) { length = v; return this; }
    /** The window's rights: {@link AccessFlags#REMOTE_READ}, {@link AccessFlags#REMOTE_WRITE}, {@link AccessFlags#REMOTE_ATOMIC}. */
    public MwBind access(int v) { access = v; return this; }
    public MwBind wrId(long v) { wrId = v; return this; }
    public MwBind flags(int v) {
        if ((v & ~SendFlags.ALL) != 0) throw new IllegalArgumentException("bind.send_flags: unknown bits 0x" + Integer.toHexString(v & ~SendFlags.ALL));
        flags = v; return this;
    }

    /** The whole region with the given rights. */
    public MwBind region(MemoryRegion region, int rights) {
        return mr(region).addr(region.address()).length(region.length()).access(rights);
    }

    public MemoryRegion mr() { return mr; }
    public long addr() { return addr; }
    public long length() { return length; }
    public int access() { return access; }
    public long wrId() { return wrId; }
    public int flags() { return flags; }
}
