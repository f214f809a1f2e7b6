package org.urdma.transport.impair;

import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

import java.util.ArrayDeque;
import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

class CellStoreTest {
    private static byte[] frame(SplittableRandom r, int length) {
        byte[] b = new byte[length];
        for (int i = 0; i < length; i++) {
            b[i] = (byte) r.nextInt();
        }
        return b;
    }

    @Test
    void framesComeBackIntactWhateverOrderCellsAreFreedIn() {
        CellStore store = new CellStore(200, 64);
        SplittableRandom r = new SplittableRandom(7);
        ArrayDeque<int[]> held = new ArrayDeque<>(); // handle, length, index into data
        java.util.List<byte[]> data = new java.util.ArrayList<>();
        for (int step = 0; step < 20_000; step++) {
            boolean add = held.isEmpty() || r.nextInt(3) != 0;
            if (add) {
                byte[] f = frame(r, 1 + r.nextInt(900));
                int h = store.store(new UnsafeBuffer(f), 0, f.length);
                if (h == CellStore.NONE) {
                    assertNotEquals(0, held.size(), "refused only when cells are in use");
                    continue;
                }
                data.add(f);
                int[] e = {h, f.length, data.size() - 1};
                if (r.nextBoolean()) {
                    held.addLast(e);
                } else {
                    held.addFirst(e);
                }
            } else {
                int[] e = r.nextBoolean() ? held.pollFirst() : held.pollLast();
                byte[] out = new byte[e[1]];
                store.copyOut(e[0], e[1], new UnsafeBuffer(out), 0);
                assertArrayEquals(data.get(e[2]), out, "frame " + e[2]);
                store.free(e[0]);
            }
        }
        while (!held.isEmpty()) {
            store.free(held.poll()[0]);
        }
        assertEquals(200, store.freeCells());
    }

    @Test
    void aFrameIntoFreshCellsUsesAdjacentCells() {
        CellStore store = new CellStore(64, 64);
        byte[] f = new byte[64 * 10];
        int h = store.store(new UnsafeBuffer(f), 0, f.length);
        store.free(h);
        // the same frame again gets the same run of cells back
        assertEquals(h, store.store(new UnsafeBuffer(f), 0, f.length));
    }

    @Test
    void aGrowingStoreKeepsHandlesAndBytesAndStopsAtItsLimit() {
        CellStore store = new CellStore(2, 40, 64);
        SplittableRandom r = new SplittableRandom(11);
        java.util.List<byte[]> data = new java.util.ArrayList<>();
        java.util.List<Integer> handles = new java.util.ArrayList<>();
        while (true) {
            byte[] f = frame(r, 200); // 4 cells
            int h = store.store(new UnsafeBuffer(f), 0, f.length);
            if (h == CellStore.NONE) break;
            data.add(f);
            handles.add(h);
        }
        assertEquals(10, data.size(), "40 cells of 64 B hold ten 200 B frames");
        assertEquals(40, store.cells());
        assertEquals(0, store.freeCells());
        for (int i = 0; i < data.size(); i++) {
            byte[] out = new byte[200];
            store.copyOut(handles.get(i), 200, new UnsafeBuffer(out), 0);
            assertArrayEquals(data.get(i), out, "frame " + i + " stored before the store grew");
        }
    }
}
