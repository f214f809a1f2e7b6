package org.urdma.switchemu.world;

import java.util.Arrays;

/**
 * Which bytes of a region were written: disjoint, sorted half-open intervals, merged as they touch. Sequential
 * placement only ever extends the last interval, and a region written end to end is one interval, so it stays small
 * and allocates only when it holds more separate intervals than ever before.
 */
final class Coverage {
    private long[] start = new long[8];
    private long[] end = new long[8];
    private int n;

    /** Marks [from, to) written. */
    void add(long from, long to) {
        if (from >= to) return;
        int i = firstEndingAtOrAfter(from);
        if (i == n || start[i] > to) { // touches nothing: insert
            if (n == start.length) {
                start = Arrays.copyOf(start, n * 2);
                end = Arrays.copyOf(end, n * 2);
            }
            System.arraycopy(start, i, start, i + 1, n - i);
            System.arraycopy(end, i, end, i + 1, n - i);
            start[i] = from;
            end[i] = to;
            n++;
            return;
        }
        int j = i; // last interval merged
        while (j + 1 < n && start[j + 1] <= to) j++;
        start[i] = Math.min(start[i], from);
        end[i] = Math.max(end[j], to);
        System.arraycopy(start, j + 1, start, i + 1, n - j - 1);
        System.arraycopy(end, j + 1, end, i + 1, n - j - 1);
        n -= j - i;
    }

    /** Whether every byte of [from, to) was written. */
    boolean covers(long from, long to) {
        if (from >= to) return true;
        int i = firstEndingAtOrAfter(from + 1);
        return i < n && start[i] <= from && end[i] >= to;
    }

    /** Separate intervals held. */
    int intervals() {
        return n;
    }

    private int firstEndingAtOrAfter(long x) {
        int lo = 0;
        int hi = n;
        while (lo < hi) {
            int mid = (lo + hi) >>> 1;
            if (end[mid] < x) lo = mid + 1;
            else hi = mid;
        }
        return lo;
    }
}
