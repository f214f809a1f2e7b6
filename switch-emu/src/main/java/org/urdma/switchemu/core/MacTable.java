package org.urdma.switchemu.core;

import org.agrona.collections.Long2LongHashMap;

/**
 * MAC address → port with aging. Fixed capacity, no allocation after construction: entries live in
 * parallel arrays, the hash map points at their index. Static entries never age and are never relearned.
 */
public final class MacTable {
    public static final int MISS = -1;

    private final Long2LongHashMap index;
    private final int[] port;
    private final long[] lastSeen;
    private final boolean[] fixed;
    private final long[] keys;
    private final boolean[] used;
    private int sweepCursor;
    /** Entries learned (not static): with none, a sweep has nothing to age and only moves its cursor. */
    private int learned;
    private final int[] free;
    private int freeCount;
    private final long agingNs;
    private long learnFailures;

    public MacTable(int capacity, long agingNs) {
        this.index = new Long2LongHashMap(capacity * 2 + 8, 0.65f, MISS);
        this.port = new int[capacity];
        this.lastSeen = new long[capacity];
        this.fixed = new boolean[capacity];
        this.keys = new long[capacity];
        this.used = new boolean[capacity];
        this.free = new int[capacity];
        for (int i = 0; i < capacity; i++) {
            free[i] = capacity - 1 - i;
        }
        this.freeCount = capacity;
        this.agingNs = agingNs;
    }

    /** Learns (or refreshes) {@code mac} on {@code inPort}. A full table learns nothing and counts it. */
    public void learn(long mac, int inPort, long now) {
        int i = (int) index.get(mac);
        if (i == MISS) {
            if (freeCount == 0) {
                learnFailures++;
                return;
            }
            i = take(mac);
            fixed[i] = false;
            learned++;
        } else if (fixed[i]) {
            return;
        }
        port[i] = inPort;
        lastSeen[i] = now;
    }

    public void addStatic(long mac, int outPort) {
        int i = (int) index.get(mac);
        if (i == MISS) {
            if (freeCount == 0) {
                throw new IllegalStateException("MAC table full: cannot add static entry");
            }
            i = take(mac);
        } else if (!fixed[i]) {
            learned--;
        }
        fixed[i] = true;
        port[i] = outPort;
    }

    /** The port {@code mac} was learned on, or {@link #MISS} if unknown or aged out (then removed). */
    public int lookup(long mac, long now) {
        int i = (int) index.get(mac);
        if (i == MISS) {
            return MISS;
        }
        if (!fixed[i] && now - lastSeen[i] > agingNs) {
            release(i);
            return MISS;
        }
        return port[i];
    }

    /**
     * Removes aged entries, looking at up to {@code budget} slots from where the last sweep stopped, so
     * that stale addresses free their room even if never looked up again (the switch calls it each poll).
     */
    public void sweep(long now, int budget) {
        int n = used.length;
        if (learned == 0) {
            if (n > 0) {
                sweepCursor = (int) ((sweepCursor + (long) Math.max(0, Math.min(budget, n))) % n);
            }
            return;
        }
        for (int k = 0; k < budget && k < n; k++) {
            int i = sweepCursor;
            sweepCursor = sweepCursor + 1 == n ? 0 : sweepCursor + 1;
            if (used[i] && !fixed[i] && now - lastSeen[i] > agingNs) {
                release(i);
            }
        }
    }

    private int take(long mac) {
        int i = free[--freeCount];
        index.put(mac, i);
        keys[i] = mac;
        used[i] = true;
        return i;
    }

    private void release(int i) {
        learned--;
        index.remove(keys[i]);
        used[i] = false;
        free[freeCount++] = i;
    }

    public int size() {
        return index.size();
    }

    public long learnFailures() {
        return learnFailures;
    }
}
