package org.urdma.transport.memory;

import org.urdma.verbs.MemoryWindow;
import org.urdma.verbs.MwType;
import org.urdma.verbs.ProtectionDomain;
import org.urdma.verbs.QueuePair;

/**
 * A memory window of a {@link MemoryKeyTable}, in rxe's states: FREE (type 2, unbound), VALID (bound, or type 1 with
 * nothing bound yet) and INVALID (deallocated). The binding fields are the engine thread's; {@link #rkey()} is the
 * consumer's copy, set when a bind is posted.
 */
public final class SoftMw implements MemoryWindow {
    /** The window's states, as rxe's {@code rxe_mw_state}. */
    public enum State { FREE, VALID, INVALID }

    private final MemoryKeyTable table;
    private final ProtectionDomain pd;
    private final MwType type;
    /** The index part of every rkey the window has (bits 31..8). */
    final int index;
    private volatile int postedRkey;
    // engine thread
    State state;
    int rkey;
    RegisteredMemory mr;
    long addr;
    long length;
    int access;
    QueuePair qp;

    SoftMw(MemoryKeyTable table, ProtectionDomain pd, MwType type, int rkey) {
        this.table = table;
        this.pd = pd;
        this.type = type;
        this.index = rkey >>> 8;
        this.rkey = rkey;
        this.postedRkey = rkey;
        this.state = type == MwType.TYPE_2 ? State.FREE : State.VALID;
    }

    @Override public int rkey() { return postedRkey; }
    @Override public MwType type() { return type; }
    @Override public ProtectionDomain pd() { return pd; }

    /** The consumer's rkey after posting a bind that gives the window {@code next}. */
    public void posted(int next) {
        postedRkey = next;
    }

    /** Whether the window is one of {@code t}'s (a device's own). */
    public boolean of(MemoryKeyTable t) {
        return table == t;
    }

    /** The index every rkey of the window keeps (bits 31..8). */
    public int index() {
        return index;
    }

    /** The window's state (engine thread). */
    public State state() {
        return state;
    }

    /** Whether [va, va+len) lies inside the bound range. */
    boolean contains(long va, long len) {
        return len >= 0 && va >= addr && va - addr <= length - len;
    }

    @Override
    public void dealloc() {
        table.dealloc(this);
    }

    @Override
    public String toString() {
        return "mw[" + type + " rkey=0x" + Integer.toHexString(rkey) + " " + state + "]";
    }
}
