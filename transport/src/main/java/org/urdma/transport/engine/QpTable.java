package org.urdma.transport.engine;

import java.util.random.RandomGenerator;
import org.agrona.collections.Int2ObjectHashMap;

/** A device's QPs by number: the numbers it hands out, and the lookup of each arrival's QP. */
final class QpTable {
    private final Int2ObjectHashMap<SoftQp> qpsByNum = new Int2ObjectHashMap<>();
    /** The QP the last packet went to, and its number (-1: none): a flow's packets come in runs, the map is a hash. */
    private SoftQp lastQp;
    private int lastQpn = -1;
    private int nextQpn;

    QpTable(RandomGenerator random) {
        this.nextQpn = 0x11 + random.nextInt(0x1000);
    }

    /** The QP numbered {@code qpn}, or null. */
    SoftQp lookup(int qpn) {
        SoftQp qp = qpn == lastQpn ? lastQp : qpsByNum.get(qpn);
        if (qp != lastQp && qp != null) {
            lastQp = qp;
            lastQpn = qpn;
        }
        return qp;
    }

    /** A number for a new QP: {@code fixedQpn} when not 0 (and free), else the next free one from 2 up. */
    int newQpn(int fixedQpn, String device) {
        int qpn = fixedQpn;
        if (qpn != 0 && qpsByNum.containsKey(qpn)) throw new IllegalStateException("qp: QP" + qpn + " exists already on " + device);
        while (qpn == 0 || qpsByNum.containsKey(qpn)) {
            qpn = nextQpn;
            nextQpn = (nextQpn + 1) & 0xFFFFFF;
            if (nextQpn < 2) nextQpn = 2; // QP0/QP1 are special
        }
        return qpn;
    }

    void put(SoftQp qp) {
        qpsByNum.put(qp.qpNum(), qp);
    }

    /** True when {@code qp} was in the table. */
    boolean remove(SoftQp qp) {
        boolean was = qpsByNum.remove(qp.qpNum()) == qp;
        if (lastQp == qp) {
            lastQp = null;
            lastQpn = -1;
        }
        return was;
    }

    int size() {
        return qpsByNum.size();
    }

    Iterable<SoftQp> all() {
        return qpsByNum.values();
    }
}
