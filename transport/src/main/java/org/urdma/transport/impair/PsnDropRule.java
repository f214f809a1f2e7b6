package org.urdma.transport.impair;

import java.nio.ByteOrder;
import org.agrona.DirectBuffer;
import org.urdma.transport.wire.Psn;

/**
 * A drop pattern decided in advance (not by a random draw): drops the first frame carrying each listed PSN of a
 * destination QP, read in place from the BTH of RoCEv2 (IPv4/IPv6 UDP 4791) and RoCEv1 (0x8915) frames, optionally
 * VLAN-tagged; later frames with that PSN (the resends) pass. The simulated world's wires and the real-time switch's
 * ports both consult it before their netem stage, so one pattern drops the same packets in both, however their timing
 * differs. ACKs, CNPs and manufacturer opcodes are never dropped; other frames pass untouched. Per link, one thread; no
 * allocation per frame.
 */
public final class PsnDropRule {
    /** Destination QPs one rule tracks; later ones pass (counted in {@link #untracked()}). */
    public static final int MAX_QPS = 256;
    private static final int ROCE_V2_PORT = 4791;

    private final PsnPattern pattern;
    private final int words;
    /** Open-addressed table of QPs seen: QPN + 1 (0 = empty), the first PSN seen, and drop flags per offset. */
    private final int[] qpn = new int[MAX_QPS];
    private final int[] base = new int[MAX_QPS];
    private final long[] done;
    private int tracked;
    private long dropped;
    private long untracked;

    PsnDropRule(PsnPattern pattern) {
        this.pattern = pattern;
        this.words = (pattern.size() + 63) >>> 6;
        this.done = new long[MAX_QPS * words];
    }

    public PsnPattern pattern() {
        return pattern;
    }

    /** Whether the frame at {@code offset} must be dropped (and counted as dropped). */
    public boolean drops(DirectBuffer b, int offset, int length) {
        int bth = bthOffset(b, offset, length);
        if (bth < 0) return false;
        int opcode = b.getByte(bth) & 0xFF;
        int op = opcode & 0x1F;
        if (opcode >= 0x80 || op == 0x11 || op == 0x12) return false; // CNP, 0xC0+, ACKNOWLEDGE, ATOMIC_ACKNOWLEDGE
        int dest = b.getInt(bth + 4, ByteOrder.BIG_ENDIAN) & Psn.MASK;
        int psn = b.getInt(bth + 8, ByteOrder.BIG_ENDIAN) & Psn.MASK;
        if (pattern.qp() >= 0 && dest != pattern.qp()) return false;
        int slot = slot(dest, psn);
        if (slot < 0) return false;
        int rel = Psn.diff(psn, base[slot]);
        int i = rel < 0 ? -1 : pattern.indexOf(rel);
        if (i < 0) return false;
        int w = slot * words + (i >>> 6);
        long bit = 1L << i;
        if ((done[w] & bit) != 0) return false;
        done[w] |= bit;
        dropped++;
        return true;
    }

    /** The table slot of {@code dest}, taking it (with {@code psn} as its first PSN) when new; -1 when full. */
    private int slot(int dest, int psn) {
        int h = (dest * 0x9E3779B1) >>> 24; // MAX_QPS = 256 slots
        for (int n = 0; n < MAX_QPS; n++) {
            int s = (h + n) & (MAX_QPS - 1);
            if (qpn[s] == dest + 1) return s;
            if (qpn[s] == 0) {
                if (tracked == MAX_QPS) break;
                qpn[s] = dest + 1;
                base[s] = psn;
                tracked++;
                return s;
            }
        }
        untracked++;
        return -1;
    }

    /** Offset of the BTH in a RoCEv1 or RoCEv2 frame, or -1 (another protocol, or too short). */
    static int bthOffset(DirectBuffer b, int off, int len) {
        int end = off + len;
        int p = off + 12;
        for (int tags = 0; tags < 2 && p + 2 <= end; tags++) {
            int tpid = b.getShort(p, ByteOrder.BIG_ENDIAN) & 0xFFFF;
            if (tpid != 0x8100 && tpid != 0x88A8) break;
            p += 4;
        }
        if (p + 2 > end) return -1;
        int type = b.getShort(p, ByteOrder.BIG_ENDIAN) & 0xFFFF;
        int l3 = p + 2;
        int bth;
        if (type == 0x8915) {
            if (l3 + 40 > end || (b.getByte(l3 + 6) & 0xFF) != 0x1B) return -1;
            bth = l3 + 40;
        } else if (type == 0x0800) {
            if (l3 + 20 > end) return -1;
            int ihl = (b.getByte(l3) & 0x0F) * 4;
            if (ihl < 20 || (b.getByte(l3 + 9) & 0xFF) != 17) return -1;
            if ((b.getShort(l3 + 6, ByteOrder.BIG_ENDIAN) & 0x3FFF) != 0) return -1; // a fragment: no BTH of its own
            bth = udpPayload(b, l3 + ihl, end);
        } else if (type == 0x86DD) {
            if (l3 + 40 > end || (b.getByte(l3 + 6) & 0xFF) != 17) return -1;
            bth = udpPayload(b, l3 + 40, end);
        } else {
            return -1;
        }
        return bth >= 0 && bth + 12 <= end ? bth : -1;
    }

    private static int udpPayload(DirectBuffer b, int udp, int end) {
        if (udp + 8 > end || (b.getShort(udp + 2, ByteOrder.BIG_ENDIAN) & 0xFFFF) != ROCE_V2_PORT) return -1;
        return udp + 8;
    }

    /** Frames this rule dropped. */
    public long dropped() {
        return dropped;
    }

    /** Frames of QPs beyond {@link #MAX_QPS} that passed unchecked. */
    public long untracked() {
        return untracked;
    }

    @Override
    public String toString() {
        return pattern + ": " + dropped + " dropped";
    }
}
