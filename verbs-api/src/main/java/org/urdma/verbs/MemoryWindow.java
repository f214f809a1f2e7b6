package org.urdma.verbs;

/**
 * A memory window ({@code ibv_mw}): an rkey that grants remote access to part of a memory region, bound and unbound by
 * work requests so the rights can change without registering memory again.
 */
public interface MemoryWindow extends AutoCloseable {
    /**
     * The window's rkey: the one its last posted bind gave it ({@link QueuePair#bindMw}'s result for type 1, the rkey
     * of the last {@link WrOpcode#BIND_MW} request for type 2).
     */
    int rkey();

    MwType type();

    ProtectionDomain pd();

    /** Destroys the window ({@code ibv_dealloc_mw}): its rkey stops working at once and its region is released. */
    void dealloc();

    @Override
    default void close() {
        dealloc();
    }

    /** The next rkey for a bind, as rdma-core's {@code ibv_inc_rkey}: the low 8 bits (the key) advance, the index stays. */
    static int incRkey(int rkey) {
        return (rkey & 0xFFFFFF00) | ((rkey + 1) & 0xFF);
    }
}
