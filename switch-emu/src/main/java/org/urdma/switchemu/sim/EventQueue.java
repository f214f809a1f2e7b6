package org.urdma.switchemu.sim;

import java.util.Arrays;

/**
 * The event queue of {@link Simulator}: a binary heap of primitive events (time, sequence, code), so scheduling
 * allocates nothing once the heap has grown to the run's high-water mark. Events at the same time run in the order
 * they were scheduled, which makes a run deterministic. An event's three words lie side by side in one array, so a
 * step of the heap touches one place in memory, not three.
 */
final class EventQueue {
    private static final int TIME = 0;
    private static final int SEQ = 1;
    private static final int CODE = 2;
    private static final int WORDS = 3;

    private long[] heap = new long[1024 * WORDS];
    private int size;
    private long nextSeq;

    int size() {
        return size;
    }

    boolean isEmpty() {
        return size == 0;
    }

    long peekTime() {
        return heap[TIME];
    }

    /** Code of the head event; {@link #pop} removes it. */
    long peekCode() {
        return heap[CODE];
    }

    void add(long at, long eventCode) {
        if (size * WORDS == heap.length) {
            heap = Arrays.copyOf(heap, heap.length * 2);
        }
        long[] h = heap;
        int i = size++;
        long s = nextSeq++;
        while (i > 0) {
            int parent = (i - 1) >>> 1;
            int p = parent * WORDS;
            if (!(at < h[p] || (at == h[p] && s < h[p + SEQ]))) break;
            move(h, p, i * WORDS);
            i = parent;
        }
        int at3 = i * WORDS;
        h[at3] = at;
        h[at3 + SEQ] = s;
        h[at3 + CODE] = eventCode;
    }

    void pop() {
        int last = --size;
        if (last == 0) return;
        long[] h = heap;
        int l3 = last * WORDS;
        long t = h[l3];
        long s = h[l3 + SEQ];
        long c = h[l3 + CODE];
        int i = 0;
        while (true) {
            int child = 2 * i + 1;
            if (child >= last) break;
            int c3 = child * WORDS;
            if (child + 1 < last) {
                int d3 = c3 + WORDS;
                if (h[d3] < h[c3] || (h[d3] == h[c3] && h[d3 + SEQ] < h[c3 + SEQ])) {
                    child++;
                    c3 = d3;
                }
            }
            if (t < h[c3] || (t == h[c3] && s < h[c3 + SEQ])) break;
            move(h, c3, i * WORDS);
            i = child;
        }
        int i3 = i * WORDS;
        h[i3] = t;
        h[i3 + SEQ] = s;
        h[i3 + CODE] = c;
    }

    private static void move(long[] h, int from, int to) {
        h[to] = h[from];
        h[to + SEQ] = h[from + SEQ];
        h[to + CODE] = h[from + CODE];
    }
}
