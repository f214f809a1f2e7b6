package org.urdma.switchemu.core;

/**
 * Virtual output queues (input, output, priority) in front of a crossbar scheduled by iSLIP
 * (McKeown 1999): per slot, outputs grant round-robin from their grant pointer, inputs accept
 * round-robin from their accept pointer, pointers move one past the match only when a grant is
 * accepted in the first iteration. Priority-aware: a request carries the highest priority the input
 * has ready for that output, outputs and inputs prefer the highest priority, round-robin among equals.
 * Speedup 1: a matched pair moves at most a slot's worth of wire bytes (frame + preamble, FCS, IFG),
 * checking the budget before each frame. The frame that does not fit in what is left of a slot starts
 * crossing and keeps its pair connected (packet mode) until it is through; in the slot it completes,
 * whole frames that fit may follow but none starts crossing, so the pair is matched again by iSLIP in the
 * next slot. What that slot's pair left unused is credited to the same pair in the next slot (as if the
 * next frame had started crossing in it): matched again, it moves those bytes too, so one pair carries
 * the line rate for frames of any size, and no output ever takes more than a slot's worth of bytes per
 * slot over time (the credit is only ever what the previous slot did not use). Slots run at exact times
 * (1542 B at 100 Gbit/s = 123.36 ns), so the fabric keeps the line rate exactly.
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
    private final long slotQ;
    private final long slotR;
    private final long slotDen;
    private final long slotBytes;
    private final int overheadBytes;
    private final CellPool pool;
    /** The output (or -1) an input is held connected to while a frame crosses, its priority and bytes crossed. */
    private final int[] heldOut;
    private final int[] heldPriority;
    private final long[] crossed;
    /** Bytes an input's pair left unused in slot {@link #creditSlot} after a held frame went through, to {@link #creditOut}. */
    private final long[] credit;
    private final int[] creditOut;
    private final long[] creditSlot;
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
    /** The next slot starts at nextSlot + nextSlotRem / slotDen ns. */
    private long nextSlot = NEVER;
    private long nextSlotRem;
    private long slots;
    private long transfers;

    /**
     * A slot lasts {@code slotNum / slotDen} ns and carries {@code slotBytes} wire bytes per matched pair; a
     * frame of L bytes takes max(L, 60) + {@code overheadBytes} of them.
     */
    Crossbar(int ports, int iterations, long slotNum, long slotDen, long slotBytes, int overheadBytes, CellPool pool) {
        this.n = ports;
        this.iterations = iterations;
        this.slotQ = slotNum / slotDen;
        this.slotR = slotNum % slotDen;
        this.slotDen = slotDen;
        this.slotBytes = slotBytes;
        this.overheadBytes = overheadBytes;
        this.pool = pool;
        heldOut = new int[ports];
        heldPriority = new int[ports];
        crossed = new long[ports];
        credit = new long[ports];
        creditOut = new int[ports];
        creditSlot = new long[ports];
        java.util.Arrays.fill(heldOut, -1);
        java.util.Arrays.fill(creditOut, -1);
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
        bytesToOut[out * 8 + priority] += pool.frameWire[handle];
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
        bytesToOut[out * 8 + priority] -= pool.frameWire[handle];
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
            sum += pool.frameWire[h];
        }
        return sum;
    }

    /** Runs every slot due at or before {@code now}. */
    void run(long now, Outputs outputs) {
        if (total == 0) {
            nextSlot = NEVER;
            return;
        }
        if (nextSlot == NEVER || nextSlot < now - 16 * (slotQ + 1)) {
            nextSlot = now;
            nextSlotRem = 0;
            java.util.Arrays.fill(creditOut, -1); // the slots in between went unused: nothing carries over
        }
        while (slotStart() <= now && total > 0) {
            slot(slotStart(), outputs);
            nextSlot += slotQ;
            nextSlotRem += slotR;
            if (nextSlotRem >= slotDen) {
                nextSlotRem -= slotDen;
                nextSlot++;
            }
        }
        if (total == 0) {
            nextSlot = NEVER;
        }
    }

    /** When the next slot is due, or Long.MAX_VALUE if the VOQs are empty. */
    long deadline() {
        return total == 0 || nextSlot == NEVER ? Long.MAX_VALUE : slotStart();
    }

    /** The next slot's start, rounded up to a whole ns. */
    private long slotStart() {
        return nextSlotRem == 0 ? nextSlot : nextSlot + 1;
    }

    private long wireBytes(int handle) {
        return Math.max(pool.frameWire[handle], 60) + overheadBytes;
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
        for (int i = 0; i < n; i++) {
            // a pair with a frame half across stays connected; it takes no part in matching
            if (heldOut[i] >= 0) {
                matchOut[i] = heldOut[i];
                matchPriority[i] = heldPriority[i];
                outMatched[heldOut[i]] = true;
            }
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
                transfer(in, out, matchPriority[in], t, outputs);
            }
        }
    }

    /** A matched pair's slot: whole frames while the budget lasts, then the next one starts crossing. */
    private void transfer(int in, int out, int p, long t, Outputs outputs) {
        int q = voq(in, out, p);
        boolean held = heldOut[in] >= 0;
        long carried = creditOut[in] == out && creditSlot[in] == slots - 1 ? credit[in] : 0;
        long budget = slotBytes + crossed[in] + carried;
        heldOut[in] = -1;
        crossed[in] = 0;
        creditOut[in] = -1;
        long moved = 0;
        while (frames[q] > 0 && pool.frameEligible[head[q]] <= t) {
            long wire = wireBytes(head[q]);
            boolean room = outputs.hasRoom(out, p);
            if (moved + wire <= budget && room) {
                moved += wire;
                move(q, out, p, t, outputs);
                continue;
            }
            // the frame that does not fit crosses partly and holds the pair (a held frame not yet
            // through stays held); after a held frame is through, none starts: the pair goes back to iSLIP
            long left = budget - moved;
            if (held ? moved == 0 : left > 0 && room) {
                heldOut[in] = out;
                heldPriority[in] = p;
                crossed[in] = Math.min(left, wire);
            } else if (held && room && left > 0) {
                creditOut[in] = out; // the next frame waits for iSLIP; if this pair is matched again, it gets the rest
                creditSlot[in] = slots;
                credit[in] = left;
            }
            break;
        }
    }

    private void move(int q, int out, int p, long at, Outputs outputs) {
        transfers++;
        int handle = remove(q, out, p);
        // it cannot leave the output before it crossed
        pool.frameEligible[handle] = Math.max(pool.frameEligible[handle], at);
        outputs.accept(out, p, handle);
    }
}
