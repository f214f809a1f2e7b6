package org.urdma.verbs;

import java.lang.foreign.MemorySegment;

/** A registered memory region ({@code ibv_mr}). */
public interface MemoryRegion extends AutoCloseable {
    /** Virtual address of the first byte (the segment's native address). */
    long address();

    long length();

    int lkey();

    int rkey();

    int access();

    MemorySegment segment();

    ProtectionDomain pd();

    /** Whether the keys still grant access (false after deregister or remote invalidate). */
    boolean isValid();

    /** Revokes the keys; any later access with them fails. Idempotent. */
    void deregister();

    @Override
    default void close() {
        deregister();
    }
}
