package org.urdma.verbs;

import java.lang.foreign.MemorySegment;

/** A protection domain: memory regions, QPs, SRQs and address handles that may work together. */
public interface ProtectionDomain extends AutoCloseable {
    Device device();

    /**
     * Registers an off-heap (native) segment with the given {@link AccessFlags}. The region's virtual
     * address is the segment's native address; its keys are unpredictable.
     */
    MemoryRegion registerMemory(MemorySegment segment, int access);

    QueuePair createQp(QpInitAttributes init);

    SharedReceiveQueue createSrq(int maxWr, int maxSge, int limit);

    AddressHandle createAh(AddressHandleAttributes attributes);

    @Override
    void close();
}
