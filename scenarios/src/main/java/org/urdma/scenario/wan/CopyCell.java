package org.urdma.scenario.wan;

/**
 * One row's result for one workload in one cell: {@code seconds} from the command's start to its exit (a ceiling row:
 * its measured interval), {@code payloadBytes} the data it moved, CPU seconds on each side (NaN: not measured),
 * {@code wireBytes} what crossed h2's link both ways (-1: not measured), {@code verified} the destination's
 * {@code sha256sum -c} (a ceiling row: its own check), and a note ("" when nothing to say).
 */
public record CopyCell(String workload, double rttMs, double lossPercent, String row, double rateGbps, double seconds,
                       long payloadBytes, double senderCpuSeconds, double receiverCpuSeconds, long wireBytes, boolean verified,
                       String note) {
    /** Goodput as a fraction of the bottleneck rate. */
    public double fraction() {
        return seconds <= 0 ? 0 : payloadBytes * 8 / seconds / (rateGbps * 1e9);
    }

    /** CPU seconds per GB (10^9 bytes) of payload on one side; NaN when not measured. */
    public double perGb(double cpuSeconds) {
        return payloadBytes <= 0 ? Double.NaN : cpuSeconds / (payloadBytes / 1e9);
    }

    /** Wire bytes per payload byte; NaN when not measured. */
    public double wirePerPayload() {
        return wireBytes < 0 || payloadBytes <= 0 ? Double.NaN : wireBytes / (double) payloadBytes;
    }
}
