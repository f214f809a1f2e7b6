package org.urdma.switchemu.sim;

import java.util.Arrays;

/**
 * The event queue of {@link Simulator}: a binary heap of primitive events (time, sequence, code), so scheduling
 * allocates nothing once the heap has grown to the run's high-water mark. Events at the same time run in the order
 * they were scheduled, which makes a run deterministic.
 */
final class EventQueue {
    private long[] time = new long[1024];
    private long[] seq = new long[1024];
    private long[] code = new long[1024];
    private int size;
    private long nextSeq;

    int size() {
        return size;
    }

    boolean isEmpty() {
        return size == 0;
    }

    long peekTime() {
        return time[0];
    }

    /** Code of the head event; {@link #pop} removes it. */
    long peekCode() {
        return code[0];
    }

    void add(long at, long eventCode) {
        if (size == time.length) {
            time = Arrays.copyOf(time, size * 2);
            seq = Arrays.copyOf(seq, size * 2);
            code = Arrays.copyOf(code, size * 2);
        }
        int i = size++;
        long s = nextSeq++;
        while (i > 0) {
            int parent = (i - 1) >>> 1;
            if (!before(at, s, parent)) break;
            move(parent, i);
            i = parent;
        }
        time[i] = at;
        seq[i] = s;
        code[i] = eventCode;
    }

    void pop() {
        int last = --size;
        if (last == 0) return;
        long t = time[last];
        long s = seq[last];
        long c = code[last];
        int i = 0;
        while (true) {
            int child = 2 * i + 1;
            if (child >= last) break;
            if (child + 1 < last && earlier(child + 1, child)) child++;
            if (before(t, s, child)) break;
            move(child, i);
            i = child;
        }
        time[i] = t;
        seq[i] = s;
        code[i] = c;
    }

    private boolean before(long t, long s, int j) {
        return t < time[j] || (t == time[j] && s < seq[j]);
    }

    private boolean earlier(int a, int b) {
        return time[a] < time[b] || (time[a] == time[b] && seq[a] < seq[b]);
    }

    private void move(int from, int to) {
        time[to] = time[from];
        seq[to] = seq[from];
        code[to] = code[from];
    }
}
