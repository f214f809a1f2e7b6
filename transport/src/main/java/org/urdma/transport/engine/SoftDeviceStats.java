package org.urdma.transport.engine;

import org.urdma.transport.counters.Counter;
import org.urdma.transport.counters.DeviceStats;
import org.urdma.transport.counters.EngineCounters;

/** {@link DeviceStats} of a {@link SoftDevice}: its counters' totals and its scheduler's passes. */
final class SoftDeviceStats implements DeviceStats {
    private final EngineCounters counters;
    private final PassScheduler scheduler;
    private final QpTable qps;

    SoftDeviceStats(EngineCounters counters, PassScheduler scheduler, QpTable qps) {
        this.counters = counters;
        this.scheduler = scheduler;
        this.qps = qps;
    }

    @Override
    public long get(Counter c) {
        return counters.get(c);
    }

    @Override
    public long get(Counter c, int priority) {
        return counters.get(c, priority);
    }

    @Override
    public long passes() {
        return scheduler.passes();
    }

    @Override
    public long qpVisits() {
        return scheduler.qpVisits();
    }

    @Override
    public int qpCount() {
        return qps.size();
    }
}
