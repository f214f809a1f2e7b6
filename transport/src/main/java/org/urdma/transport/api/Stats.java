package org.urdma.transport.api;

import org.urdma.transport.counters.DeviceStats;
import org.urdma.transport.counters.QpStats;
import org.urdma.transport.engine.SoftDevice;
import org.urdma.transport.engine.SoftQp;
import org.urdma.verbs.Device;
import org.urdma.verbs.QueuePair;

/**
 * The counters of urdma's QPs and devices, read in process. The verbs themselves carry none, as in libibverbs, whose
 * counters live beside the verbs ({@code rdma statistic}, sysfs {@code hw_counters}); {@code urdma stat} reads the same
 * numbers from another process.
 */
public final class Stats {
    private Stats() {
    }

    /**
     * {@return the read-only counters of {@code qp}}
     *
     * @param qp a QP of a urdma device
     * @throws IllegalArgumentException when {@code qp} was not made by a urdma device
     */
    public static QpStats of(QueuePair qp) {
        if (qp instanceof SoftQp q) return q.stats();
        throw new IllegalArgumentException("qp: not a urdma QP (" + qp.getClass().getName() + ")");
    }

    /**
     * {@return the read-only counters of {@code device}}
     *
     * @param device a urdma device ({@link UrdmaDevice#verbs()})
     * @throws IllegalArgumentException when {@code device} is not a urdma device
     */
    public static DeviceStats of(Device device) {
        if (device instanceof SoftDevice d) return d.stats();
        throw new IllegalArgumentException("device: not a urdma device (" + device.getClass().getName() + ")");
    }
}
