package org.urdma.switchemu.core;

/**
 * A set of a switch's port numbers as a bitmap, walked in ascending order; a walk reads the live bits, so a port added
 * above the walk's position during it is still visited. Allocation-free.
 */
final class PortSet {
    private final long[] words;

    PortSet(int ports) {
        words = new long[(ports + 63) >>> 6];
    }

    void add(int port) {
        words[port >>> 6] |= 1L << port;
    }

    void remove(int port) {
        words[port >>> 6] &= ~(1L << port);
    }

    boolean contains(int port) {
        return (words[port >>> 6] & (1L << port)) != 0;
    }

    /** Sets this port to {@code member}. */
    void set(int port, boolean member) {
        if (member) {
            add(port);
        } else {
            remove(port);
        }
    }

    /** The lowest port at or above {@code from} in this set, or -1. */
    int next(int from) {
        return nextIn(this, this, this, from);
    }

    /** The lowest port at or above {@code from} in any of the three sets (all of one switch), or -1. */
    static int nextIn(PortSet a, PortSet b, PortSet c, int from) {
        int w = from >>> 6;
        if (w >= a.words.length) {
            return -1;
        }
        long bits = (a.words[w] | b.words[w] | c.words[w]) & (-1L << from);
        while (true) {
            if (bits != 0) {
                return (w << 6) + Long.numberOfTrailingZeros(bits);
            }
            if (++w == a.words.length) {
                return -1;
            }
            bits = a.words[w] | b.words[w] | c.words[w];
        }
    }
}
