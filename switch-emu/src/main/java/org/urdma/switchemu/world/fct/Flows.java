package org.urdma.switchemu.world.fct;

import java.util.Arrays;

/**
 * A flow list in arrays (a flow is ~30 bytes, so a million flows fit in tens of megabytes): flow i goes from host
 * {@code src[i]} to host {@code dst[i]} (host numbers: indices into the run's host list), in PFC class
 * {@code priority[i]}, tagged {@code dport[i]} (HPCC's convention: 100 for the background load, 200 for incast),
 * {@code size[i]} bytes, starting at {@code startNs[i]}. Kept sorted by start time (ties in insertion order).
 */
public final class Flows {
    private int count;
    private int[] src = new int[16];
    private int[] dst = new int[16];
    private byte[] priority = new byte[16];
    private short[] dport = new short[16];
    private long[] size = new long[16];
    private long[] startNs = new long[16];

    public Flows add(int from, int to, int prio, int port, long bytes, long start) {
        if (from == to) throw new IllegalArgumentException("flow " + count + ": source and destination are both host " + from);
        if (bytes < 1) throw new IllegalArgumentException("flow " + count + ": size must be >= 1 byte, was " + bytes);
        if (bytes > 1L << 31) throw new IllegalArgumentException("flow " + count + ": size must be <= 2 GiB, was " + bytes);
        if (prio < 0 || prio > 7) throw new IllegalArgumentException("flow " + count + ": priority must be 0..7, was " + prio);
        if (port < 0 || port > 65_535) throw new IllegalArgumentException("flow " + count + ": dport must be 0..65535, was " + port);
        if (start < 0) throw new IllegalArgumentException("flow " + count + ": start must be >= 0, was " + start);
        if (count == src.length) {
            int n = count * 2;
            src = Arrays.copyOf(src, n);
            dst = Arrays.copyOf(dst, n);
            priority = Arrays.copyOf(priority, n);
            dport = Arrays.copyOf(dport, n);
            size = Arrays.copyOf(size, n);
            startNs = Arrays.copyOf(startNs, n);
        }
        src[count] = from;
        dst[count] = to;
        priority[count] = (byte) prio;
        dport[count] = (short) port;
        size[count] = bytes;
        startNs[count] = start;
        count++;
        return this;
    }

    /** Sorts by start time, stable (flows of one instant keep their order). */
    public Flows sorted() {
        Integer[] order = new Integer[count];
        for (int i = 0; i < count; i++) order[i] = i;
        Arrays.sort(order, (a, b) -> Long.compare(startNs[a], startNs[b]));
        Flows f = new Flows();
        for (int i : order) f.add(src[i], dst[i], priority[i], dport(i), size[i], startNs[i]);
        return f;
    }

    public int count() {
        return count;
    }

    public int src(int i) {
        return src[i];
    }

    public int dst(int i) {
        return dst[i];
    }

    public int priority(int i) {
        return priority[i];
    }

    public int dport(int i) {
        return dport[i] & 0xFFFF;
    }

    public long size(int i) {
        return size[i];
    }

    public long startNs(int i) {
        return startNs[i];
    }

    /** Total bytes of the flows. */
    public long bytes() {
        long b = 0;
        for (int i = 0; i < count; i++) b += size[i];
        return b;
    }

    public long largest() {
        long m = 0;
        for (int i = 0; i < count; i++) m = Math.max(m, size[i]);
        return m;
    }
}
