package org.urdma.transport.engine;

/**
 * Which PSNs of a window have arrived, for out-of-order placement in WAN mode (the responder's requests, the
 * requester's READ responses), with what the in-order pass needs of each: whether it ends a message, the message's
 * length and its immediate data or R_Key to invalidate. Indexed by PSN mod {@link #SIZE}; a slot is cleared when the
 * in-order point passes it, so it is clean when the PSN comes round again.
 */
final class PsnWindow {
    static final int SIZE = 1 << 15;
    private static final int MASK = SIZE - 1;
    static final int END = 1, IMM = 2, INV = 4, SEND = 8, WRITE = 16, SOLICITED = 32;

    private final long[] present = new long[SIZE / 64];
    final byte[] flags = new byte[SIZE];
    final int[] aux = new int[SIZE];
    final int[] length = new int[SIZE];

    boolean has(int psn) {
        int i = psn & MASK;
        return (present[i >>> 6] & (1L << i)) != 0;
    }

    void set(int psn, int f, int auxValue, int len) {
        int i = psn & MASK;
        present[i >>> 6] |= 1L << i;
        flags[i] = (byte) f;
        aux[i] = auxValue;
        length[i] = len;
    }

    int flagsOf(int psn) {
        return flags[psn & MASK];
    }

    int auxOf(int psn) {
        return aux[psn & MASK];
    }

    int lengthOf(int psn) {
        return length[psn & MASK];
    }

    void clear(int psn) {
        int i = psn & MASK;
        present[i >>> 6] &= ~(1L << i);
        flags[i] = 0;
    }

    /** From {@code psn} on, the first PSN whose presence is {@code want}, looking at most {@code limit} PSNs ahead (then psn + limit). */
    int next(int psn, boolean want, int limit) {
        int n = 0;
        while (n < limit) {
            int i = (psn + n) & MASK;
            long word = present[i >>> 6];
            if (!want) word = ~word;
            word >>>= (i & 63);
            if (word != 0) {
                n += Long.numberOfTrailingZeros(word);
                break;
            }
            n += 64 - (i & 63);
        }
        return (psn + Math.min(n, limit)) & 0xFFFFFF;
    }
}
