package org.urdma.switchemu.core;

/**
 * Virtual output queues (input, output, priority) in front of a crossbar scheduled by iSLIP
 * (McKeown 1999): per slot, outputs grant round-robin from their grant pointer, inputs accept
 * round-robin from their accept pointer, pointers move one past the match only when a grant is
 * accepted in the first iteration. Priority-aware: a request carries the highest priority the input
 * has ready for that output, outputs and inputs prefer the highest priority, round-robin among equals.
 * Frames are cell-pool handles linked through {@link CellPool#frameNext}; nothing is allocated.
 */
final class Crossbar {
    /** The output side: whether an output queue takes another frame, and taking it. */
    interface Outputs {
        boolean hasRoom(int out, int priority);

        void accept(int out, int priority, int handle);
    }

    private static final long NEVER = Long.MIN_VALUE;

    private final int n;
    private final int iterations;
    private final long slotNs;
    private final long slotBytes;
    private final CellPool pool;
    private final int[] head;
    private final int[] tail;
    private final int[] frames;
    final long[] bytesToOut;
    private final int[] grantPointer;
    private final int[] acceptPointer;
    private final int[] grantTo;
    private final int[] grantPriority;
    private final int[] matchOut;
    private final int[] matchPriority;
    private final boolean[] outMatched;
    private int total;
    private long nextSlot = NEVER;
    private long slots;
    private long transfers;

    Crossbar(int ports, int iterations, long slotNs, long slotBytes, CellPool pool) {
        this.n = ports;
        this.iterations = iterations;
        this.slotNs = slotNs;
        this.slotBytes = slotBytes;
        this.pool = pool;
        int voqs = ports * ports * 8;
        head = new int[voqs];
        tail = new int[voqs];
        frames = new int[voqs];
        java.util.Arrays.fill(head, CellPool.NONE);
        java.util.Arrays.fill(tail, CellPool.NONE);
        bytesToOut = new long[ports * 8];
        grantPointer = new int[ports];
        acceptPointer = new int[ports];
        grantTo = new int[ports];
        grantPriority = new int[ports];
        matchOut = new int[ports];
        matchPriority = new int[ports];
        outMatched = new boolean[ports];
    }

    private int voq(int in, int out, int priority) {
        return (in * n + out) * 8 + priority;
    }

    void add(int in, int out, int priority, int handle) {
        int q = voq(in, out, priority);
        if (tail[q] == CellPool.NONE) {
            head[q] = handle;
        } else {
            pool.frameNext[tail[q]] = handle;
        }
        tail[q] = handle;
        frames[q]++;
        bytesToOut[out * 8 + priority] += pool.frameLength[handle];
        total++;
    }

    private int remove(int q, int out, int priority) {
        int handle = head[q];
        head[q] = pool.frameNext[handle];
        if (head[q] == CellPool.NONE) {
            tail[q] = CellPool.NONE;
        }
        pool.frameNext[handle] = CellPool.NONE;
        frames[q]--;
        bytesToOut[out * 8 + priority] -= pool.frameLength[handle];
        total--;
        return handle;
    }

    /** Removes the next frame any input holds for (out, priority), or NONE. */
    int takeAny(int out, int priority) {
        for (int in = 0; in < n; in++) {
            int q = voq(in, out, priority);
            if (frames[q] > 0) {
                return remove(q, out, priority);
            }
        }
        return CellPool.NONE;
    }

    long voqBytes(int in, int out, int priority) {
        long sum = 0;
        int q = voq(in, out, priority);
        for (int h = head[q]; h != CellPool.NONE; h = pool.frameNext[h]) {
            sum += pool.frameLength[h];
        }
        return sum;
    }

    /** Runs every slot due at or before {@code now}. */
    void run(long now, Outputs outputs) {
        if (total == 0) {
            nextSlot = NEVER;
            return;
        }
        if (nextSlot == NEVER || nextSlot < now - 16 * slotNs) {
            nextSlot = now;
        }
        while (nextSlot <= now && total > 0) {
            slot(nextSlot, outputs);
            nextSlot += slotNs;
        }
        if (total == 0) {
            nextSlot = NEVER;
        }
    }

    /** When the next slot is due, or Long.MAX_VALUE if the VOQs are empty. */
    long deadline() {
        return total == 0 || nextSlot == NEVER ? Long.MAX_VALUE : nextSlot;
    }

    long slots() {
        return slots;
    }

    long transfers() {
        return transfers;
    }

    private int highestReady(int in, int out, long t, Outputs outputs) {
        for (int p = 7; p >= 0; p--) {
            int q = voq(in, out, p);
            if (frames[q] > 0 && pool.frameEligible[head[q]] <= t && outputs.hasRoom(out, p)) {
                return p;
            }
        }
        return -1;
    }

    private void slot(long t, Outputs outputs) {
        slots++;
        for (int i = 0; i < n; i++) {
            matchOut[i] = -1;
            outMatched[i] = false;
        }
        for (int iteration = 0; iteration < iterations; iteration++) {
            boolean any = false;
            for (int out = 0; out < n; out++) {
                grantTo[out] = -1;
                if (outMatched[out]) {
                    continue;
                }
                int best = -1;
                for (int k = 0; k < n; k++) {
                    int in = (grantPointer[out] + k) % n;
                    if (matchOut[in] >= 0) {
                        continue;
                    }
                    int p = highestReady(in, out, t, outputs);
                    if (p > best) {
                        best = p;
                        grantTo[out] = in;
                    }
                }
                grantPriority[out] = best;
                any |= best >= 0;
            }
            if (!any) {
                break;
            }
            for (int in = 0; in < n; in++) {
                if (matchOut[in] >= 0) {
                    continue;
                }
                int best = -1;
                int bestOut = -1;
                for (int k = 0; k < n; k++) {
                    int out = (acceptPointer[in] + k) % n;
                    if (grantTo[out] == in && grantPriority[out] > best) {
                        best = grantPriority[out];
                        bestOut = out;
                    }
                }
                if (bestOut >= 0) {
                    matchOut[in] = bestOut;
                    matchPriority[in] = best;
                    outMatched[bestOut] = true;
                    if (iteration == 0) {
                        grantPointer[bestOut] = (in + 1) % n;
                        acceptPointer[in] = (bestOut + 1) % n;
                    }
                }
            }
        }
        for (int in = 0; in < n; in++) {
            int out = matchOut[in];
            if (out >= 0) {
                int p = matchPriority[in];
                // a matched pair moves a slot's worth of bytes (at least one frame) from the granted VOQ
                int q = voq(in, out, p);
                long moved = 0;
                do {
                    transfers++;
                    int handle = remove(q, out, p);
                    moved += pool.frameLength[handle];
                    // it cannot leave the output before it crossed
                    pool.frameEligible[handle] = Math.max(pool.frameEligible[handle], t);
                    outputs.accept(out, p, handle);
                } while (moved < slotBytes && frames[q] > 0 && pool.frameEligible[head[q]] <= t && outputs.hasRoom(out, p));
            }
        }
    }
}
