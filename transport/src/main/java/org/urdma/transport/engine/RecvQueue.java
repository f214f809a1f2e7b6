package org.urdma.transport.engine;

import java.util.concurrent.atomic.AtomicLong;
import org.urdma.verbs.ReceiveWorkRequest;

/** A receive queue (a QP's own or an SRQ): WQEs posted by the application, consumed in order by the engine. */
final class RecvQueue {
    final int size;
    final int mask;
    final int maxSge;
    final long[] wrId;
    final int[] numSge;
    final long[] sgeAddr;
    final int[] sgeLen;
    final int[] sgeLkey;
    final AtomicLong producer = new AtomicLong();
    final AtomicLong consumer = new AtomicLong();

    RecvQueue(int requested, int maxSge) {
        int n = Integer.highestOneBit(Math.max(1, requested - 1)) << 1;
        size = Math.max(n, requested);
        mask = size - 1;
        this.maxSge = maxSge;
        wrId = new long[size];
        numSge = new int[size];
        sgeAddr = new long[size * maxSge];
        sgeLen = new int[size * maxSge];
        sgeLkey = new int[size * maxSge];
    }

    /** Posts a receive; {@code qpn} names the owner in errors (-1 for an SRQ). */
    void put(ReceiveWorkRequest wr, int qpn) {
        if (wr.numSge() > maxSge) {
            throw new IllegalArgumentException("num_sge: " + wr.numSge() + " exceeds max_recv_sge=" + maxSge + " of " + owner(qpn));
        }
        long p = producer.get();
        if (p - consumer.get() >= size) throw new IllegalStateException("rq: " + owner(qpn) + " is full, " + size + " receives posted");
        int s = (int) (p & mask);
        wrId[s] = wr.wrId();
        int n = wr.numSge();
        numSge[s] = n;
        int base = s * maxSge;
        for (int i = 0; i < n; i++) Dma.store(wr.sge(i), sgeAddr, sgeLen, sgeLkey, base + i);
        producer.lazySet(p + 1);
    }

    private static String owner(int qpn) {
        return qpn < 0 ? "the SRQ" : "QP " + qpn;
    }

    /** Slot of the next receive, or -1 when none is posted (engine). */
    int peek() {
        long c = consumer.get();
        return c == producer.get() ? -1 : (int) (c & mask);
    }

    /** Slot of the receive {@code k} places behind the oldest, or -1 when fewer are posted (WAN mode places ahead). */
    int peekAt(int k) {
        long c = consumer.get() + k;
        return k >= 0 && c < producer.get() ? (int) (c & mask) : -1;
    }

    void consume() {
        consumer.lazySet(consumer.get() + 1);
    }

    int posted() {
        return (int) (producer.get() - consumer.get());
    }

    int totalLength(int slot) {
        long n = 0;
        int base = slot * maxSge;
        for (int i = 0; i < numSge[slot]; i++) n += sgeLen[base + i];
        return (int) Math.min(n, Integer.MAX_VALUE);
    }
}
