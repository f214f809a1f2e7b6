package org.urdma.switchemu.core;

import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import org.urdma.switchemu.frame.FrameView;
import org.urdma.switchemu.frame.PortFormat;
import org.urdma.switchemu.sim.Frames;
import org.urdma.transport.wire.Ipv4Header;

import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * ECN (RED) at dequeue, measured under a virtual clock: a queue is filled with ECT frames, then drained;
 * each dequeue happens at a known depth, so the CE fraction per depth band can be compared with
 * pmax × (depth − kmin) / (kmax − kmin).
 */
class EcnMarkingTest {
    private static final long KMIN = 50_000;
    private static final long KMAX = 250_000;
    private static final double PMAX = 0.2;
    private static final long DST = 0x02_00_00_00_00_02L;
    private static final long SRC = 0x02_00_00_00_00_01L;

    private long marked;
    private int lastEcn;
    private long lastDepth;
    private long transmissions;
    private boolean checksumOk = true;
    private SwitchCore core;

    private SwitchCore newCore(long seed) {
        SwitchConfig c = new SwitchConfig().bufferBytes(4_000_000).reserveBytes(1_500).dtAlpha(8);
        for (int i = 0; i < 2; i++) {
            c.port(new PortConfig().rateBps(10_000_000_000L).classify(ClassifyMode.DEFAULT).ecn(0x01, KMIN, KMAX, PMAX));
        }
        SwitchCore s = new SwitchCore(c, (port, buffer, offset, length, start, end) -> {
            FrameView v = new FrameView();
            v.wrap(buffer, offset, length, PortFormat.ETHERNET);
            lastEcn = v.ecn();
            lastDepth = core.queueBytes(port, 0);
            transmissions++;
            int ip = offset + v.ipv4Offset();
            checksumOk &= Ipv4Header.checksumValid(buffer, ip);
        }, new SplittableRandom(seed));
        s.addStaticMac(DST, 1);
        return s;
    }

    @Test
    void markingProbabilityRisesLinearlyFromKminToPmaxAtKmax() {
        core = newCore(42);
        int bands = 4;
        long[] framesInBand = new long[bands];
        long[] marksInBand = new long[bands];
        double[] expectedInBand = new double[bands];
        long below = 0;
        long belowMarked = 0;
        long above = 0;
        long aboveMarked = 0;
        byte[] frame = Frames.ipv4Udp(DST, SRC, -1, 26, 0b10, 1000);
        UnsafeBuffer fb = new UnsafeBuffer(frame);
        long now = 0;
        transmissions = 0;
        for (int round = 0; round < 300; round++) {
            for (int i = 0; i < 400; i++) {
                core.onFrame(0, fb, 0, frame.length, now);
            }
            long seen = transmissions;
            long next = core.poll(now);
            while (true) {
                if (transmissions != seen) {
                    seen = transmissions;
                    // one frame left port 1 in that poll; lastDepth is the depth it left behind
                    long depth = lastDepth;
                    boolean ce = lastEcn == FrameView.ECN_CE;
                    if (depth <= KMIN) {
                        below++;
                        belowMarked += ce ? 1 : 0;
                    } else if (depth > KMAX) {
                        above++;
                        aboveMarked += ce ? 1 : 0;
                    } else {
                        int band = (int) Math.min(bands - 1, (depth - KMIN) * bands / (KMAX - KMIN));
                        framesInBand[band]++;
                        marksInBand[band] += ce ? 1 : 0;
                        expectedInBand[band] += PMAX * (depth - KMIN) / (double) (KMAX - KMIN);
                    }
                }
                if (next == Long.MAX_VALUE) {
                    break;
                }
                now = next;
                next = core.poll(now);
            }
        }
        assertEquals(0, core.bufferUsed());
        assertEquals(300 * 400, below + above + sum(framesInBand), "one observation per frame");
        assertTrue(below > 10_000);
        assertEquals(0, belowMarked, "never marked at or below kmin");
        assertEquals(above, aboveMarked, "always marked above kmax");
        double previous = 0;
        for (int b = 0; b < bands; b++) {
            double p = expectedInBand[b] / framesInBand[b];
            double sigma = Math.sqrt(framesInBand[b] * p * (1 - p));
            assertEquals(expectedInBand[b], marksInBand[b], 4 * sigma + 1,
                "band " + b + ": " + marksInBand[b] + " of " + framesInBand[b]);
            double measured = marksInBand[b] / (double) framesInBand[b];
            assertTrue(measured > previous, "probability rises with depth");
            previous = measured;
        }
        assertTrue(previous > 0.75 * PMAX && previous < PMAX, "approaches pmax near kmax: " + previous);
        assertTrue(checksumOk, "IPv4 header checksum stays valid after CE rewrite");
        assertEquals(core.counters(1).ecnMarked, sum(marksInBand) + aboveMarked);
    }

    @Test
    void notEctFramesAreNeverMarked() {
        core = newCore(1);
        byte[] frame = Frames.ipv4Udp(DST, SRC, -1, 0, 0b00, 1000);
        UnsafeBuffer fb = new UnsafeBuffer(frame);
        for (int i = 0; i < 400; i++) {
            core.onFrame(0, fb, 0, frame.length, 0);
        }
        long now = 0;
        long next = core.poll(now);
        while (next != Long.MAX_VALUE) {
            assertEquals(0, lastEcn);
            next = core.poll(next);
        }
        assertEquals(0, core.counters(1).ecnMarked);
    }

    private static long sum(long[] values) {
        long s = 0;
        for (long v : values) {
            s += v;
        }
        return s;
    }
}
