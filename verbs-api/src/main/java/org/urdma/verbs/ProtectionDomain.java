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

    /**
     * Allocates a memory window ({@code ibv_alloc_mw}): type 1 starts valid and unbound, type 2 free until a
     * {@link WrOpcode#BIND_MW} binds it. Throws IllegalStateException past the device's max_mw.
     */
    MemoryWindow allocMw(MwType type);

    QueuePair createQp(QpInitAttributes init);

    SharedReceiveQueue createSrq(int maxWr, int maxSge, int limit);

    AddressHandle createAh(AddressHandleAttributes attributes);

    @Override
    void close();
}
