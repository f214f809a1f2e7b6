package org.urdma.scenario.wan;

/**
 * One protocol's result in one cell of the matrix. {@code retransmitted} and {@code fecRepaired} are packets (-1: the
 * protocol does not say); {@code cpuNsPerByte} is the receiver's CPU time per delivered byte (NaN: not measured);
 * {@code note} says why a run failed or what to know about it ("" when nothing).
 */
public record WanCell(String protocol, double rttMs, double lossPercent, double rateGbps, long bytes, double seconds,
                      long retransmitted, long fecRepaired, boolean verified, double cpuNsPerByte, String note) {
    /** Delivered bits per second. */
    public double goodputGbps() {
        return seconds <= 0 ? 0 : bytes * 8 / seconds / 1e9;
    }

    /** Goodput as a fraction of the bottleneck. */
    public double fraction() {
        return goodputGbps() / rateGbps;
    }
}
