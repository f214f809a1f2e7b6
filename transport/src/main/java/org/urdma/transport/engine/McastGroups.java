package org.urdma.transport.engine;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.agrona.collections.Long2LongHashMap;
import org.urdma.transport.mcast.MulticastMac;
import org.urdma.transport.packet.Link;
import org.urdma.verbs.Gid;
import org.urdma.verbs.QpType;

/**
 * A device's multicast groups (rxe's mcg table): the UD QPs attached to each MGID, and the port's membership of each
 * group's MAC, joined on the link with the first QP and left with the last. Engine thread only (attach and detach
 * come through the control queue); looking up an arrival's group walks an array and allocates nothing.
 */
final class McastGroups {
    /** rxe's defaults (RXE_MAX_MCAST_GRP, RXE_MAX_MCAST_QP_ATTACH). */
    static final int MAX_GROUPS = 8192;
    static final int MAX_QPS_PER_GROUP = 56;

    /** One group: its MGID halves and the attached QPs in attach order. */
    static final class Group {
        final long hi, lo;
        final long mac;
        SoftQp[] qps = new SoftQp[4];
        int size;

        Group(long hi, long lo, long mac) {
            this.hi = hi;
            this.lo = lo;
            this.mac = mac;
        }
    }

    private final Link link;
    private Group[] groups = new Group[4];
    private int count;
    /** Groups per MAC: two MGIDs can share one (the mapping keeps 23 or 32 bits), the port joins it once. */
    private final Long2LongHashMap macUsers = new Long2LongHashMap(0);

    McastGroups(Link link) {
        this.link = link;
    }

    /** Attaches {@code qp} to {@code mgid}, as {@code ibv_attach_mcast}; attaching twice is no error (rxe). */
    void attach(SoftQp qp, Gid mgid) {
        checkQp(qp);
        long mac = MulticastMac.of(mgid, "gid");
        long hi = half(mgid, 0), lo = half(mgid, 8);
        Group g = find(hi, lo);
        if (g == null) {
            if (count == MAX_GROUPS) throw new IllegalStateException("gid: the device has " + MAX_GROUPS + " multicast groups already");
            g = new Group(hi, lo, mac);
            if (count == groups.length) groups = Arrays.copyOf(groups, count * 2);
            groups[count++] = g;
            long users = macUsers.get(mac);
            if (users == 0) link.joinMulticast(mac);
            macUsers.put(mac, users + 1);
        }
        for (int i = 0; i < g.size; i++) {
            if (g.qps[i] == qp) return;
        }
        if (g.size == MAX_QPS_PER_GROUP) {
            throw new IllegalStateException("gid: " + mgid + " has " + MAX_QPS_PER_GROUP + " QPs attached already");
        }
        if (g.size == g.qps.length) g.qps = Arrays.copyOf(g.qps, g.size * 2);
        g.qps[g.size++] = qp;
    }

    /** Detaches {@code qp} from {@code mgid}, as {@code ibv_detach_mcast}: it must be attached. */
    void detach(SoftQp qp, Gid mgid) {
        checkQp(qp);
        MulticastMac.check(mgid, "gid");
        Group g = find(half(mgid, 0), half(mgid, 8));
        if (g == null || !remove(g, qp)) {
            throw new IllegalArgumentException("gid: QP " + qp.qpNum() + " is not attached to " + mgid);
        }
        if (g.size == 0) drop(g);
    }

    /** Detaches {@code qp} from every group (the QP is destroyed). */
    void detachAll(SoftQp qp) {
        for (int i = count - 1; i >= 0; i--) {
            Group g = groups[i];
            if (remove(g, qp) && g.size == 0) drop(g);
        }
    }

    /** The group of MGID {@code hi:lo}, or null. */
    Group find(long hi, long lo) {
        for (int i = 0; i < count; i++) {
            Group g = groups[i];
            if (g.lo == lo && g.hi == hi) return g;
        }
        return null;
    }

    /** The MGIDs {@code qp} is attached to. */
    List<Gid> groupsOf(SoftQp qp) {
        List<Gid> out = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            Group g = groups[i];
            for (int j = 0; j < g.size; j++) {
                if (g.qps[j] == qp) out.add(gid(g.hi, g.lo));
            }
        }
        return out;
    }

    int size() {
        return count;
    }

    private static void checkQp(SoftQp qp) {
        if (qp.type() != QpType.UD) throw new IllegalArgumentException("qp_type: multicast needs a UD QP, QP " + qp.qpNum() + " is " + qp.type());
    }

    private static boolean remove(Group g, SoftQp qp) {
        for (int i = 0; i < g.size; i++) {
            if (g.qps[i] == qp) {
                System.arraycopy(g.qps, i + 1, g.qps, i, g.size - i - 1);
                g.qps[--g.size] = null;
                return true;
            }
        }
        return false;
    }

    private void drop(Group g) {
        for (int i = 0; i < count; i++) {
            if (groups[i] == g) {
                System.arraycopy(groups, i + 1, groups, i, count - i - 1);
                groups[--count] = null;
                break;
            }
        }
        long users = macUsers.get(g.mac) - 1;
        if (users <= 0) {
            macUsers.remove(g.mac);
            link.leaveMulticast(g.mac);
        } else {
            macUsers.put(g.mac, users);
        }
    }

    private static long half(Gid g, int from) {
        long v = 0;
        for (int i = 0; i < 8; i++) v = (v << 8) | (g.byteAt(from + i) & 0xFF);
        return v;
    }

    private static Gid gid(long hi, long lo) {
        byte[] b = new byte[16];
        for (int i = 0; i < 8; i++) {
            b[i] = (byte) (hi >>> (56 - 8 * i));
            b[8 + i] = (byte) (lo >>> (56 - 8 * i));
        }
        return Gid.of(b);
    }
}
