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
    private final int[] free;
    private int freeCount;
    private final long agingNs;
    private long learnFailures;

    public MacTable(int capacity, long agingNs) {
        this.index = new Long2LongHashMap(capacity * 2 + 8, 0.65f, MISS);
        this.port = new int[capacity];
        this.lastSeen = new long[capacity];
        this.fixed = new boolean[capacity];
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
            i = free[--freeCount];
            index.put(mac, i);
            fixed[i] = false;
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
            i = free[--freeCount];
            index.put(mac, i);
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
            index.remove(mac);
            free[freeCount++] = i;
            return MISS;
        }
        return port[i];
    }

    public int size() {
        return index.size();
    }

    public long learnFailures() {
        return learnFailures;
    }
}
