package org.urdma.switchemu.core;

import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import org.urdma.switchemu.sim.Frames;

import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertTrue;

/** Shared-buffer admission (Dynamic Threshold) measured through the switch. */
class MmuTest {
    private static final long RATE = 10_000_000_000L;
    private static final long SINK = 0x02_00_00_00_00_FFL;

    @Test
    void lossyIncastHoldsTheDynamicThresholdBoundInTheCongestedEgressQueue() {
        int senders = 8;
        long buffer = 1 << 20;
        long reserve = 1_500;
        double alpha = 1;
        SwitchConfig c = new SwitchConfig().bufferBytes(buffer).reserveBytes(reserve).dtAlpha(alpha);
        for (int i = 0; i <= senders; i++) {
            c.port(new PortConfig().rateBps(RATE));
        }
        SwitchCore core = new SwitchCore(c, (port, b, o, l, start, end) -> { }, new SplittableRandom(1));
        core.addStaticMac(SINK, senders);
        byte[] frame = Frames.ethernet(SINK, 0x02_00_00_00_00_01L, 0, 0x88B6, 1500);
        UnsafeBuffer buf = new UnsafeBuffer(frame);
        double wireNs = (1500 + 24) * 8 * 1e9 / RATE;
        long next = Long.MAX_VALUE;
        for (int k = 1; k <= 3_000; k++) {
            // every sender at line rate into one port: the sink's queue fills until admission stops it
            long now = (long) Math.ceil(k * wireNs);
            while (next <= now) {
                next = core.poll(next);
            }
            for (int in = 0; in < senders; in++) {
                core.onFrame(in, buf, 0, frame.length, now);
            }
            next = core.poll(now);
        }
        long free = buffer - reserve * 8 * (senders + 1);
        // Choudhury-Hahne: one congested queue settles at q = α(F - q), i.e. α/(1+α) F above its reserve
        long bound = reserve + (long) (alpha / (1 + alpha) * free) + 1500;
        long highWater = core.counters(senders).queueHighWater[0];
        long dropped = 0;
        for (int in = 0; in < senders; in++) {
            dropped += core.counters(in).drops(DropReason.SHARED_THRESHOLD);
        }
        assertTrue(dropped > 0, "the incast overflows");
        // per-ingress DT let each of the 8 ingress queues hold α(F - shared): 8/9 F in the egress queue (1.78x)
        assertTrue(highWater <= bound && highWater > bound - 3 * 1524, "egress queue high water " + highWater + " B, DT bound " + bound + " B");
    }
}
