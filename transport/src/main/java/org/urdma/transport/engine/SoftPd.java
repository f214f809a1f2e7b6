package org.urdma.transport.engine;

import java.lang.foreign.MemorySegment;
import org.urdma.verbs.AddressHandle;
import org.urdma.verbs.AddressHandleAttributes;
import org.urdma.verbs.Device;
import org.urdma.verbs.MemoryRegion;
import org.urdma.verbs.MemoryWindow;
import org.urdma.verbs.MwType;
import org.urdma.verbs.ProtectionDomain;
import org.urdma.verbs.QpInitAttributes;
import org.urdma.verbs.QueuePair;
import org.urdma.verbs.SharedReceiveQueue;

/** A protection domain of a {@link SoftDevice}. */
public final class SoftPd implements ProtectionDomain {
    private final SoftDevice device;

    SoftPd(SoftDevice device) {
        this.device = device;
    }

    @Override
    public Device device() {
        return device;
    }

    @Override
    public MemoryRegion registerMemory(MemorySegment segment, int access) {
        return device.control(() -> device.keys().register(this, segment, access));
    }

    /**
     * Registers {@code segment} at virtual address {@code iova} instead of its native address (ibv_reg_mr_iova): a
     * simulated world gives every region the same address in every run, so its frames are the same bytes.
     */
    public MemoryRegion registerMemory(MemorySegment segment, int access, long iova) {
        return device.control(() -> device.keys().register(this, segment, access, iova));
    }

    @Override
    public MemoryWindow allocMw(MwType type) {
        return device.control(() -> device.keys().allocMw(this, type));
    }

    @Override
    public QueuePair createQp(QpInitAttributes init) {
        return device.createQp(this, init);
    }

    @Override
    public SharedReceiveQueue createSrq(int maxWr, int maxSge, int limit) {
        if (maxWr <= 0 || maxWr > device.config().maxQpWr()) {
            throw new IllegalArgumentException("max_wr: must be 1.." + device.config().maxQpWr() + ", was " + maxWr);
        }
        if (maxSge <= 0 || maxSge > device.config().maxSge()) {
            throw new IllegalArgumentException("max_sge: must be 1.." + device.config().maxSge() + ", was " + maxSge);
        }
        SoftSrq srq = new SoftSrq(this, maxWr, maxSge);
        srq.armLimit(limit);
        return srq;
    }

    @Override
    public AddressHandle createAh(AddressHandleAttributes attributes) {
        if (attributes == null) throw new IllegalArgumentException("ah_attr: must not be null");
        if (attributes.dgid() == null) throw new IllegalArgumentException("ah_attr.dgid: must be set");
        return new SoftAh(this, attributes);
    }

    SoftDevice softDevice() {
        return device;
    }

    @Override
    public void close() {
        // Resources are released with their own close(); nothing is pinned here.
    }
}
