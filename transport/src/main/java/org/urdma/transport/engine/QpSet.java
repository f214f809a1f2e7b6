package org.urdma.transport.engine;

/**
 * An unordered set of QPs with O(1) add and remove (each QP keeps its position in {@link SoftQp#setIndex}, one slot
 * per set), for the few QPs that have a timer armed or a pacing deadline; engine thread only.
 */
final class QpSet {
    static final int TIMED = 0;
    static final int PACED = 1;

    private final int id;
    private SoftQp[] members = new SoftQp[16];
    private int size;

    QpSet(int id) {
        this.id = id;
    }

    int size() {
        return size;
    }

    SoftQp get(int i) {
        return members[i];
    }

    void add(SoftQp qp) {
        if (qp.setIndex[id] >= 0) return;
        if (size == members.length) members = java.util.Arrays.copyOf(members, size * 2);
        qp.setIndex[id] = size;
        members[size++] = qp;
    }

    /** Removes {@code qp}; the last member takes its place (so remove while scanning from the end). */
    void remove(SoftQp qp) {
        int i = qp.setIndex[id];
        if (i < 0) return;
        qp.setIndex[id] = -1;
        SoftQp last = members[--size];
        members[size] = null;
        if (last != qp) {
            members[i] = last;
            last.setIndex[id] = i;
        }
    }
}
