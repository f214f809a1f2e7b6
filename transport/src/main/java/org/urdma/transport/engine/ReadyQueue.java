package org.urdma.transport.engine;

/**
 * The QPs the engine serves in its next pass, in order (a FIFO, so serving a QP and putting it back at the tail is
 * round robin). A QP is in it at most once ({@link SoftQp#ready}). Grows by doubling; engine thread only.
 */
final class ReadyQueue {
    private SoftQp[] ring = new SoftQp[64];
    private int head;
    private int size;

    int size() {
        return size;
    }

    boolean isEmpty() {
        return size == 0;
    }

    /** Adds {@code qp} at the tail unless it is already queued. */
    void add(SoftQp qp) {
        if (qp.ready) return;
        qp.ready = true;
        if (size == ring.length) grow();
        ring[(head + size) & (ring.length - 1)] = qp;
        size++;
    }

    /** Puts {@code qp}, just taken, back at the head: it is served first in the next pass. */
    void addFirst(SoftQp qp) {
        if (qp.ready) return;
        qp.ready = true;
        if (size == ring.length) grow();
        head = (head - 1) & (ring.length - 1);
        ring[head] = qp;
        size++;
    }

    /** The QP at the head, taken out of the queue, or null. */
    SoftQp poll() {
        if (size == 0) return null;
        SoftQp qp = ring[head];
        ring[head] = null;
        head = (head + 1) & (ring.length - 1);
        size--;
        qp.ready = false;
        return qp;
    }

    /** The i-th queued QP (0 = head), for scans that do not take it out. */
    SoftQp get(int i) {
        return ring[(head + i) & (ring.length - 1)];
    }

    private void grow() {
        SoftQp[] bigger = new SoftQp[ring.length * 2];
        for (int i = 0; i < size; i++) bigger[i] = ring[(head + i) & (ring.length - 1)];
        ring = bigger;
        head = 0;
    }
}
