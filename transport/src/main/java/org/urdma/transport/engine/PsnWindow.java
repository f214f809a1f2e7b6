package org.urdma.transport.engine;

/**
 * Which PSNs of a window have arrived, for out-of-order placement in WAN mode (the responder's requests, the
 * requester's READ responses), with what the in-order pass needs of each: whether it ends a message, the message's
 * length and its immediate data or R_Key to invalidate. Indexed by PSN mod {@link #SIZE}; a slot is cleared when the
 * in-order point passes it, so it is clean when the PSN comes round again.
 */
final class PsnWindow {
    /** The smallest window (and the size of one made without a packet count). */
    static final int SIZE = 1 << 15;
    /** Half the PSN space, less room: PSN distances beyond it are ambiguous. */
    static final int MAX_SIZE = 1 << 22;
    static final int END = 1, IMM = 2, INV = 4, SEND = 8, WRITE = 16, SOLICITED = 32;

    private final int size;
    private final int mask;
    private final long[] present;
    final byte[] flags;
    final int[] aux;
    final int[] length;

    PsnWindow() {
        this(SIZE);
    }

    /** A window for {@code packets} unacknowledged packets (the device's window): a power of two, SIZE..MAX_SIZE. */
    PsnWindow(int packets) {
        size = sizeFor(packets);
        mask = size - 1;
        present = new long[size / 64];
        flags = new byte[size];
        aux = new int[size];
        length = new int[size];
    }

    static int sizeFor(int packets) {
        int s = SIZE;
        while (s < packets && s < MAX_SIZE) s <<= 1;
        return s;
    }

    /** PSNs past the in-order point this window can hold. */
    int size() {
        return size;
    }

    boolean has(int psn) {
        int i = psn & mask;
        return (present[i >>> 6] & (1L << i)) != 0;
    }

    void set(int psn, int f, int auxValue, int len) {
        int i = psn & mask;
        present[i >>> 6] |= 1L << i;
        flags[i] = (byte) f;
        aux[i] = auxValue;
        length[i] = len;
    }

    int flagsOf(int psn) {
        return flags[psn & mask];
    }

    int auxOf(int psn) {
        return aux[psn & mask];
    }

    int lengthOf(int psn) {
        return length[psn & mask];
    }

    void clear(int psn) {
        int i = psn & mask;
        present[i >>> 6] &= ~(1L << i);
        flags[i] = 0;
    }

    /** From {@code psn} on, the first PSN whose presence is {@code want}, looking at most {@code limit} PSNs ahead (then psn + limit). */
    int next(int psn, boolean want, int limit) {
        int n = 0;
        while (n < limit) {
            int i = (psn + n) & mask;
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
