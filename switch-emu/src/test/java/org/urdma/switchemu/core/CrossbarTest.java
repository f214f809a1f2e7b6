package org.urdma.switchemu.core;

import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class CrossbarTest {
    private static final int N = 4;

    private static final class CountingOutputs implements Crossbar.Outputs {
        final int[] perOutput = new int[N];
        int slotTransfers;

        @Override
        public boolean hasRoom(int out, int priority) {
            return true;
        }

        @Override
        public void accept(int out, int priority, int handle) {
            perOutput[out]++;
            slotTransfers++;
        }
    }

    private static Crossbar backlogged(int iterations, CellPool pool) {
        Crossbar x = new Crossbar(N, iterations, 1_000, 1, 100, 0, pool);
        UnsafeBuffer frame = new UnsafeBuffer(new byte[100]);
        for (int k = 0; k < 200; k++) {
            for (int in = 0; in < N; in++) {
                for (int out = 0; out < N; out++) {
                    // uniform: every input has cells for every output (the classic iSLIP setting)
                    int h = pool.store(frame, 0, 100);
                    pool.frameEligible[h] = 0;
                    x.add(in, out, 0, h);
                }
            }
        }
        return x;
    }

    @Test
    void islipDesynchronizesToAFullMatchEverySlotEvenWithOneIteration() {
        CellPool pool = new CellPool(20_000, 128);
        Crossbar x = backlogged(1, pool);
        CountingOutputs outputs = new CountingOutputs();
        long t = 0;
        int fullSlots = 0;
        for (int slot = 0; slot < 200; slot++) {
            outputs.slotTransfers = 0;
            x.run(t, outputs);
            t += 1_000;
            if (slot >= 20 && outputs.slotTransfers == N) {
                fullSlots++;
            }
            assertTrue(outputs.slotTransfers <= N, "a slot matches each input and output at most once");
        }
        assertEquals(180, fullSlots, "after the pointers desynchronize every slot is a perfect matching");
        for (int out = 0; out < N; out++) {
            assertEquals(outputs.perOutput[0], outputs.perOutput[out], 6, "fair across outputs (the first slots are partial)");
        }
    }

    @Test
    void higherPriorityRequestsWin() {
        CellPool pool = new CellPool(1_000, 128);
        Crossbar x = new Crossbar(2, 2, 1_000, 1, 100, 0, pool);
        UnsafeBuffer frame = new UnsafeBuffer(new byte[100]);
        int low = pool.store(frame, 0, 100);
        int high = pool.store(frame, 0, 100);
        pool.frameEligible[low] = 0;
        pool.frameEligible[high] = 0;
        x.add(0, 1, 0, low);
        x.add(0, 1, 6, high);
        int[] order = new int[2];
        int[] count = {0};
        x.run(0, new Crossbar.Outputs() {
            @Override
            public boolean hasRoom(int out, int priority) {
                return true;
            }

            @Override
            public void accept(int out, int priority, int handle) {
                order[count[0]++] = priority;
            }
        });
        assertEquals(1, count[0]);
        assertEquals(6, order[0]);
    }

    private static int movedInOneSlot(int frameBytes, int frames) {
        CellPool pool = new CellPool(20_000, 128);
        // 1518-byte frames' wire time per slot at 10 Gbit/s: 1542 wire bytes, 1233.6 ns
        Crossbar x = new Crossbar(2, 1, 1542 * 8 * 1_000_000_000L, 10_000_000_000L, 1542, 24, pool);
        UnsafeBuffer frame = new UnsafeBuffer(new byte[frameBytes]);
        for (int k = 0; k < frames; k++) {
            int h = pool.store(frame, 0, frameBytes);
            pool.frameEligible[h] = 0;
            x.add(0, 1, 0, h);
        }
        CountingOutputs outputs = new CountingOutputs();
        x.run(0, outputs);
        return outputs.slotTransfers;
    }

    @Test
    void aMatchedPairMovesOneSlotOfWireBytesPerSlot() {
        assertEquals(1, movedInOneSlot(1518, 10), "speedup 1: one full-size frame per slot, not two");
        assertEquals(1542 / 88, movedInOneSlot(64, 100), "64 B frames: 88 wire bytes each, as many as fit");
        assertEquals(1, movedInOneSlot(1000, 10), "a second 1024 B frame does not fit the 1542 B slot");
    }

    @Test
    void framesThatStraddleSlotsStillCrossAtTheLineRate() {
        CellPool pool = new CellPool(20_000, 128);
        Crossbar x = new Crossbar(2, 1, 1_000, 1, 1542, 24, pool);
        UnsafeBuffer frame = new UnsafeBuffer(new byte[1000]);
        for (int k = 0; k < 1000; k++) {
            int h = pool.store(frame, 0, 1000);
            pool.frameEligible[h] = 0;
            x.add(0, 1, 0, h);
        }
        CountingOutputs outputs = new CountingOutputs();
        for (int slot = 0; slot < 200; slot++) {
            x.run(slot * 1_000L, outputs);
        }
        // 200 slots of 1542 B carry 301 frames of 1024 wire bytes; one padded slot end per two slots costs ~0.4 %
        assertEquals(200 * 1542 / 1024, outputs.slotTransfers, 2);
    }

    @Test
    void aFrameLongerThanASlotHoldsItsInputAndOutputForTheSlotsItNeeds() {
        CellPool pool = new CellPool(20_000, 128);
        Crossbar x = new Crossbar(2, 1, 1_000, 1, 1542, 24, pool);
        UnsafeBuffer jumbo = new UnsafeBuffer(new byte[9000]);
        for (int k = 0; k < 3; k++) {
            int h = pool.store(jumbo, 0, 9000);
            pool.frameEligible[h] = 0;
            x.add(0, 1, 0, h);
        }
        CountingOutputs outputs = new CountingOutputs();
        long t = 0;
        int[] movedAt = new int[30];
        for (int slot = 0; slot < 30; slot++) {
            outputs.slotTransfers = 0;
            x.run(t, outputs);
            movedAt[slot] = outputs.slotTransfers;
            t += 1_000;
        }
        // 9024 wire bytes need 6 slots of 1542: each jumbo frame is through (and moves) in its 6th slot
        assertEquals(1, movedAt[5]);
        assertEquals(1, movedAt[11]);
        assertEquals(1, movedAt[17]);
        assertEquals(3, java.util.Arrays.stream(movedAt).sum());
    }

    /**
     * One uncontended pair, backlogged with frames of one size, for every size from 64 to 1518 B: at speedup 1 (never
     * more than a slot's worth of wire bytes per slot, counted from the first slot) it carries at least 0.99 of the
     * line rate. A slot that ends while a frame could not start crossing must not waste its rest (1006 B frames at
     * 10 Gbit/s once crossed at 0.668 of line rate, 1200 B ones at 0.794).
     */
    @Test
    void oneUncontendedPairCarriesTheLineRateForEveryFrameSizeAtSpeedupOne() {
        int slotBytes = 1542;
        int slotsRun = 400;
        double worst = 1;
        int worstSize = 0;
        for (int size = 64; size <= 1518; size++) {
            CellPool pool = new CellPool(8_000, 256);
            Crossbar x = new Crossbar(2, 1, 1_000, 1, slotBytes, 24, pool); // 1 µs slots: only bytes per slot matter
            int wire = Math.max(size, 60) + 24;
            UnsafeBuffer frame = new UnsafeBuffer(new byte[size]);
            for (long queued = 0; queued < (long) (slotsRun + 2) * slotBytes; queued += wire) {
                int h = pool.store(frame, 0, size);
                pool.frameEligible[h] = 0;
                x.add(0, 1, 0, h);
            }
            long[] moved = {0};
            Crossbar.Outputs outputs = new Crossbar.Outputs() {
                @Override
                public boolean hasRoom(int out, int priority) {
                    return true;
                }

                @Override
                public void accept(int out, int priority, int handle) {
                    moved[0] += wire;
                    pool.free(handle);
                }
            };
            for (int slot = 0; slot < slotsRun; slot++) {
                x.run(slot * 1_000L, outputs);
                assertEquals(slot + 1, x.slots(), "one slot per run");
                assertTrue(moved[0] <= (slot + 1L) * slotBytes, size + " B: speedup 1, " + moved[0] + " B after " + (slot + 1) + " slots");
            }
            double share = (double) moved[0] / ((long) slotsRun * slotBytes);
            if (share < worst) {
                worst = share;
                worstSize = size;
            }
        }
        System.out.printf("crossbar, one uncontended pair, 64-1518 B: worst share of the line rate %.4f at %d B%n", worst, worstSize);
        assertTrue(worst >= 0.99, "worst share of the line rate " + worst + " at " + worstSize + " B");
    }
}
