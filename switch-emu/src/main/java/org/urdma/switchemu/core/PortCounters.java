package org.urdma.switchemu.core;

import java.util.Arrays;

/** Counters of one switch port. Plain fields written by the switch's single owner thread. */
public final class PortCounters {
    public long rxFrames;
    public long rxBytes;
    public long txFrames;
    public long txBytes;
    /** Frames dropped, by reason, counted on the port the frame came in on. */
    public final long[] drops = new long[DropReason.VALUES.length];
    /** PFC frames sent with the priority's class-enable bit set (XOFF and XON). */
    public final long[] pfcTx = new long[8];
    /** PFC frames sent (one per frame, whatever its class-enable vector). */
    public long pfcFramesTx;
    /** Of those, XON (time 0). */
    public final long[] pfcXonTx = new long[8];
    /** PFC frames received with the priority's class-enable bit set. */
    public final long[] pfcRx = new long[8];
    /** 802.3x PAUSE frames received. */
    public long pauseRx;
    /** Frames marked CE at dequeue on this egress port. */
    public long ecnMarked;
    /** Frames whose INT stack this egress port stamped (HPCC). */
    public long intStamped;
    /** Highest egress queue depth seen, bytes, per priority. */
    public final long[] queueHighWater = new long[8];
    /** PFC watchdog: storms detected and restored, per priority. */
    public final long[] watchdogStorms = new long[8];
    public final long[] watchdogRestores = new long[8];

    public long drops(DropReason reason) {
        return drops[reason.ordinal()];
    }

    public long totalDrops() {
        long sum = 0;
        for (long d : drops) {
            sum += d;
        }
        return sum;
    }

    @Override
    public String toString() {
        StringBuilder sb = new StringBuilder();
        sb.append("rx=").append(rxFrames).append('/').append(rxBytes).append("B tx=").append(txFrames).append('/')
            .append(txBytes).append("B ecn=").append(ecnMarked).append(" pfcFramesTx=").append(pfcFramesTx).append(" pauseRx=").append(pauseRx);
        for (DropReason r : DropReason.VALUES) {
            if (drops[r.ordinal()] != 0) {
                sb.append(" drop.").append(r).append('=').append(drops[r.ordinal()]);
            }
        }
        sb.append(" pfcTx=").append(Arrays.toString(pfcTx)).append(" pfcRx=").append(Arrays.toString(pfcRx))
            .append(" hw=").append(Arrays.toString(queueHighWater));
        return sb.toString();
    }
}
