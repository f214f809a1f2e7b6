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
        Crossbar x = new Crossbar(N, iterations, 1_000, 1, pool);
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
        Crossbar x = new Crossbar(2, 2, 1_000, 1, pool);
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
}
