package org.urdma.tools.perf;

import org.urdma.verbs.Gid;

/**
 * perftest's multicast mode of send_bw ({@code -g}, {@code -M}; send_bw.c, multicast_resources.c): UD with one QP; the
 * server attaches its QP to the group and hands the peer the group's GID and QPN 0xFFFFFF in place of its own, the
 * client sends to them (the group's multicast MAC). Without {@code -M} the group is perftest's MCG_GID.
 */
final class PerfMulticast {
    /** perftest's MCG_GID: ff01:0:2:c985::. */
    static final byte[] DEFAULT_MGID = {(byte) 0xFF, 1, 0, 0, 0, 2, (byte) 0xC9, (byte) 0x85, 0, 0, 0, 0, 0, 0, 0, 0};
    /** perftest's QPNUM_MCAST: the destination QPN of a send to a group. */
    static final int QPN = 0xFFFFFF;

    private PerfMulticast() {
    }

    /** The group of a -g run, null without -g. */
    static Gid group(PerfOptions o) {
        if (!o.mcg) return null;
        Gid g = Gid.of(o.mgid == null ? DEFAULT_MGID : parse(o.mgid));
        if (!g.isMulticast()) throw new IllegalArgumentException("-M: " + o.mgid + " is no multicast GID (its first byte must be 255)");
        return g;
    }

    /**
     * perftest's -M format: 16 bytes separated by ':', each a number as strtoll(s, 0) reads it (decimal, 0x hex,
     * leading 0 octal), e.g. {@code 0:0:0:0:0:0:0:0:0:0:255:255:239:1:2:3} for ::ffff:239.1.2.3.
     */
    static byte[] parse(String s) {
        String[] p = s.split(":", -1);
        if (p.length != 16) throw new IllegalArgumentException("-M: 16 bytes separated by ':' (perftest's format), was '" + s + "'");
        byte[] b = new byte[16];
        for (int i = 0; i < 16; i++) {
            String t = p[i].strip();
            int v;
            try {
                v = t.startsWith("0x") || t.startsWith("0X") ? Integer.parseInt(t.substring(2), 16)
                        : t.length() > 1 && t.startsWith("0") ? Integer.parseInt(t.substring(1), 8) : Integer.parseInt(t);
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("-M: byte " + (i + 1) + " '" + t + "' is no number, in '" + s + "'");
            }
            if (v < 0 || v > 255) throw new IllegalArgumentException("-M: byte " + (i + 1) + " must be 0..255, was " + v + ", in '" + s + "'");
            b[i] = (byte) v;
        }
        return b;
    }

    /** Refuses a group RoCEv2 cannot carry: urdma's RoCEv2 is IPv4, so the group is an IPv4-mapped one (RoCEv1's GRH carries any). */
    static void checkFamily(Gid group, org.urdma.transport.wire.FramingKind kind) {
        if (kind == org.urdma.transport.wire.FramingKind.ROCE2 && !org.urdma.transport.port.GidTable.isIpv4Mapped(group)) {
            throw new IllegalArgumentException("-M: over RoCEv2 (IPv4) the group must be IPv4-mapped, was " + group
                    + "; e.g. -M 0:0:0:0:0:0:0:0:0:0:255:255:239:1:2:3, or --framing roce1");
        }
    }

    /** perftest's checks of -g (force_dependecies): send_bw, one QP, one way; the connection becomes UD as perftest's does. */
    static void apply(PerfTest test, PerfOptions o) {
        if (!o.mcg) {
            if (o.mgid != null) throw new IllegalArgumentException("-M: chooses the group of a multicast run; add -g");
            return;
        }
        if (test != PerfTest.SEND_BW) throw new IllegalArgumentException("-g: multicast is for send-bw, not " + test.command);
        if (o.bidirectional) throw new IllegalArgumentException("-g: a multicast run goes one way (perftest refuses -b with -g)");
        if (o.qps > 1) throw new IllegalArgumentException("-g: one QP is attached to the group, as perftest's, was -q " + o.qps);
        if (o.duration > 0) throw new IllegalArgumentException("-g: a multicast run counts -n iterations here (not -D)");
        o.connection = "UD";
        group(o); // a bad -M fails before anything is set up
    }
}
