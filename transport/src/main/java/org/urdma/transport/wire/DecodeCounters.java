package org.urdma.transport.wire;

/** Plain per-reason counters of decode results (single writer: the thread that decodes). */
public final class DecodeCounters {
    private final long[] counts = new long[DecodeStatus.count()];

    /** Counts {@code status} and returns it, so a decoder can {@code return counters.record(x)}. */
    public DecodeStatus record(final DecodeStatus status) {
        counts[status.ordinal()]++;
        return status;
    }

    public long get(final DecodeStatus status) {
        return counts[status.ordinal()];
    }

    /** Every non-OK result. */
    public long dropped() {
        long sum = 0;
        for (int i = 1; i < counts.length; i++) {
            sum += counts[i];
        }
        return sum;
    }

    public void reset() {
        java.util.Arrays.fill(counts, 0);
    }

    @Override
    public String toString() {
        final StringBuilder sb = new StringBuilder("DecodeCounters{");
        for (final DecodeStatus s : DecodeStatus.values()) {
            if (counts[s.ordinal()] != 0) {
                sb.append(s).append('=').append(counts[s.ordinal()]).append(' ');
            }
        }
        return sb.append('}').toString();
    }
}
