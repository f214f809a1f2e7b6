package org.urdma.transport.engine;

/**
 * The WAN receiver's loss rate, for the SACK-ETH loss byte (docs/WAN.md): PSNs skipped when the highest PSN seen
 * advances, over windows of {@link #WINDOW} PSNs, in 1/{@link #UNITS} (saturating at 255, 6.2 %). It counts losses as
 * the path made them, before FEC or a resend repairs them, which is what the sender's rate control and FEC sizing want.
 */
final class LossMeter {
    static final int WINDOW = 512;
    static final int UNITS = 4096;
    private int span;
    private int skipped;
    private int report;

    /** The highest PSN moved {@code skipped + 1} PSNs ahead, past {@code skipped} that have not arrived. */
    void onAdvance(int skippedPsns) {
        span += skippedPsns + 1;
        skipped += skippedPsns;
        if (span >= WINDOW) {
            report = (int) Math.min(255, (skipped * (long) UNITS + span / 2) / span);
            span = 0;
            skipped = 0;
        }
    }

    /** The last full window's loss rate in 1/4096. */
    int report() {
        return report;
    }

    static double fraction(int units) {
        return units / (double) UNITS;
    }
}
