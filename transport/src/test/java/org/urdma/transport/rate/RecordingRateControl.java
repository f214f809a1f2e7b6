package org.urdma.transport.rate;

import java.util.ArrayList;
import java.util.List;

/** A rate control that paces nothing and records the congestion signals it hears, to prove CNP delivery. */
public final class RecordingRateControl implements RateControl {
    /** Times of the CNPs heard, in order. */
    public final List<Long> cnps = new ArrayList<>();
    public int ceSignals;

    /** A factory that hands out this one instance (for the one QP under test). */
    public Factory factory() {
        RecordingRateControl self = this;
        return new Factory() {
            @Override
            public RateControl create() {
                return self;
            }

            @Override
            public String name() {
                return "recording";
            }
        };
    }

    @Override
    public long nextSendTime(long now) {
        return Long.MIN_VALUE;
    }

    @Override
    public void onSent(int payloadBytes, long now) {
    }

    @Override
    public void onCongestion(CongestionSignal signal, long now) {
        if (signal == CongestionSignal.CNP) cnps.add(now);
        else ceSignals++;
    }

    @Override
    public String name() {
        return "recording";
    }
}
