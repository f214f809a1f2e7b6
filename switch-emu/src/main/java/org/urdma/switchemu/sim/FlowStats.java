package org.urdma.switchemu.sim;

import java.util.BitSet;

/** What a sink saw of one flow: frames, duplicates, reordering, CE marks, one-way delay. */
public final class FlowStats {
    private final BitSet seen = new BitSet();
    public long frames;
    public long unique;
    public long duplicates;
    /** Frames that arrived after a frame with a higher sequence number. */
    public long reordered;
    public long ceMarked;
    public long corruptedHeaders;
    private int maxSeq = -1;
    private double delaySum;
    private double delaySquares;
    public long minDelayNs = Long.MAX_VALUE;
    public long maxDelayNs;
    public long firstArrivalNs = -1;
    public long lastArrivalNs = -1;

    void record(int seq, long delayNs, boolean ce, long now) {
        frames++;
        if (firstArrivalNs < 0) {
            firstArrivalNs = now;
        }
        lastArrivalNs = now;
        if (seen.get(seq)) {
            duplicates++;
        } else {
            seen.set(seq);
            unique++;
        }
        if (seq < maxSeq) {
            reordered++;
        }
        maxSeq = Math.max(maxSeq, seq);
        if (ce) {
            ceMarked++;
        }
        delaySum += delayNs;
        delaySquares += (double) delayNs * delayNs;
        minDelayNs = Math.min(minDelayNs, delayNs);
        maxDelayNs = Math.max(maxDelayNs, delayNs);
    }

    public double meanDelayNs() {
        return frames == 0 ? Double.NaN : delaySum / frames;
    }

    public double stdDevDelayNs() {
        if (frames < 2) {
            return Double.NaN;
        }
        double mean = meanDelayNs();
        return Math.sqrt(Math.max(0, delaySquares / frames - mean * mean));
    }

    public boolean saw(int seq) {
        return seen.get(seq);
    }
}
