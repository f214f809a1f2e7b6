package org.urdma.transport.fec;

import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;
import org.urdma.transport.wire.Psn;

/**
 * P-FEC receiver side. Like the encoder it keeps, per stripe of an open group, one running XOR: of the data packets
 * received and of the stripe's parity once it arrives. When a stripe has its parity and all but one of its data
 * packets, that XOR is the missing packet: {@link #onData} or {@link #onParity} returns {@link #RECOVERED} and
 * {@link #recoveredPsn()}, {@link #recovered()} and {@link #recoveredLength()} give it (valid until the next call).
 * A stripe missing two or more is unrecoverable (its losses go to SACK).
 * <p>
 * Groups follow each other: the next one starts where the last ended. Data packets are accumulated into the group
 * their PSN falls in under the geometry (m, r) last announced by a parity packet (or given to {@link #expect}); a
 * parity packet for a group not open with its base and geometry realigns the decoder there, dropping the open groups
 * it overlaps (their losses go to SACK), so a sender that changes m or r costs about one group of FEC at the change.
 * A packet is only ever rebuilt from a group whose base, m and r match its parity's, so a rebuilt packet is exact. {@code slots} groups stay open for
 * reordering; data or parity older than that is ignored, and a group leaving the window is finished: its
 * unrecoverable stripes and unrepaired packets are counted. Buffers are made once; no allocation per packet.
 */
public final class FecDecoder {
    /** The packet was not used: too old, a duplicate, or of a discarded group. */
    public static final int IGNORED = -1;
    /** The packet was accumulated; nothing rebuilt. */
    public static final int ACCEPTED = 0;
    /** A missing data packet was rebuilt: see {@link #recoveredPsn()}. */
    public static final int RECOVERED = 1;

    private final int maxPayload;
    private final int maxParity;
    private final Group[] slots;
    /** Geometry for groups not yet announced by a parity packet. */
    private int nextBase;
    private int m;
    private int r;
    private boolean started;
    private int recoveredPsn;
    private UnsafeBuffer recoveredBuffer;
    private int recoveredLength;
    private long recoveredCount;
    private long unrecoverableStripes;
    private long unrepairedPackets;
    private long discardedGroups;
    private long groupsOpened;

    private static final class Group {
        final UnsafeBuffer[] acc;
        final int[] accLength;
        final int[] lengthXor;
        final int[] received;
        final boolean[] parity;
        final long[] seen = new long[4];
        int base;
        int m;
        int r;
        boolean live;

        Group(int maxPayload, int maxParity) {
            acc = new UnsafeBuffer[maxParity];
            for (int j = 0; j < maxParity; j++) acc[j] = new UnsafeBuffer(new byte[maxPayload]);
            accLength = new int[maxParity];
            lengthXor = new int[maxParity];
            received = new int[maxParity];
            parity = new boolean[maxParity];
        }

        void reset(int base, int m, int r) {
            for (int j = 0; j < this.r; j++) {
                acc[j].setMemory(0, accLength[j], (byte) 0);
                accLength[j] = 0;
                lengthXor[j] = 0;
                received[j] = 0;
                parity[j] = false;
            }
            seen[0] = seen[1] = seen[2] = seen[3] = 0;
            this.base = base;
            this.m = m;
            this.r = r;
            live = true;
        }

        boolean seen(int i) {
            return (seen[i >> 6] & (1L << i)) != 0;
        }

        void see(int i) {
            seen[i >> 6] |= 1L << i;
        }

        int stripeSize(int j) {
            return (m - j + r - 1) / r;
        }

        int missing(int j) {
            return stripeSize(j) - received[j];
        }

        void xor(int j, DirectBuffer b, int off, int len) {
            Xor.into(acc[j], b, off, len);
            if (len > accLength[j]) accLength[j] = len;
        }
    }

    /**
     * @param maxPayload longest protected byte string (as given to the encoder)
     * @param maxParity  most parity packets per group
     * @param slots      groups kept open for reordering (at least 2: parity of one group arrives amid the next's data)
     */
    public FecDecoder(int maxPayload, int maxParity, int slots) {
        if (maxPayload < 1 || maxPayload > 0xFFFF) throw new IllegalArgumentException("fec: maxPayload must be 1..65535, was " + maxPayload);
        if (maxParity < 1 || maxParity > 255) throw new IllegalArgumentException("fec: maxParity must be 1..255, was " + maxParity);
        if (slots < 2 || slots > 64) throw new IllegalArgumentException("fec: slots must be 2..64, was " + slots);
        this.maxPayload = maxPayload;
        this.maxParity = maxParity;
        this.slots = new Group[slots];
        for (int i = 0; i < slots; i++) this.slots[i] = new Group(maxPayload, maxParity);
    }

    /** The first group starts at {@code basePsn} with {@code m} data and {@code r} parity packets (as negotiated). */
    public void expect(int basePsn, int m, int r) {
        checkGeometry(m, r);
        nextBase = basePsn & Psn.MASK;
        this.m = m;
        this.r = r;
        started = true;
    }

    private void checkGeometry(int m, int r) {
        if (m < 1 || m > 255) throw new IllegalArgumentException("fec: m must be 1..255, was " + m);
        if (r < 1 || r > m || r > maxParity) throw new IllegalArgumentException("fec: r must be 1.." + Math.min(m, maxParity) + ", was " + r);
    }

    /** A data packet arrived: its PSN and protected bytes. */
    public int onData(int psn, DirectBuffer bytes, int offset, int length) {
        if (!started || length < 0 || length > maxPayload) return IGNORED;
        Group g = groupOf(psn & Psn.MASK);
        if (g == null) return IGNORED;
        int i = Psn.diff(psn, g.base);
        if (g.seen(i)) return IGNORED;
        g.see(i);
        int j = i % g.r;
        g.xor(j, bytes, offset, length);
        g.lengthXor[j] ^= length;
        g.received[j]++;
        return tryRebuild(g, j);
    }

    /** A parity packet arrived: its FEC-ETH fields and payload. Malformed geometry is ignored (and counted by the caller). */
    public int onParity(int basePsn, int m, int r, int index, int lengthXor, DirectBuffer bytes, int offset, int length) {
        if (m < 1 || m > 255 || r < 1 || r > m || r > maxParity || index < 0 || index >= r
                || length < 0 || length > maxPayload || lengthXor > maxPayload) {
            return IGNORED;
        }
        basePsn &= Psn.MASK;
        if (!started) expect(basePsn, m, r);
        Group g = groupAt(basePsn, m, r);
        if (g == null || g.parity[index]) return IGNORED;
        g.parity[index] = true;
        g.xor(index, bytes, offset, length);
        g.lengthXor[index] ^= lengthXor;
        return tryRebuild(g, index);
    }

    /**
     * The open group a data PSN falls in, opening groups up to it under the current geometry; null if too old. At most
     * {@code slots} groups are opened: the groups before those, which no packet reached, are counted and passed over,
     * so a PSN far ahead (groups of one after a parity said so) costs no more than a near one.
     */
    private Group groupOf(int psn) {
        for (Group g : slots) {
            if (g.live && Psn.diff(psn, g.base) >= 0 && Psn.diff(psn, g.base) < g.m) return g;
        }
        int ahead = Psn.diff(psn, nextBase);
        if (ahead < 0) return null;
        int passed = ahead / m - (slots.length - 1);
        if (passed > 0) pass(passed);
        Group g;
        do {
            g = open(nextBase, m, r);
        } while (Psn.diff(psn, g.base) >= g.m);
        return g;
    }

    /**
     * The group a parity packet belongs to. Groups are contiguous, so a parity packet whose group is not open with the
     * same base and geometry realigns the decoder: open groups from that base on were accumulated on wrong boundaries
     * and are dropped (their losses go to SACK), and groups start again at it. Null when the group is too old.
     */
    private Group groupAt(int base, int m, int r) {
        for (Group g : slots) {
            if (g.live && g.base == base && g.m == m && g.r == r) return g;
        }
        if (Psn.diff(base, oldestBase()) < 0) return null;
        for (Group g : slots) {
            if (g.live && Psn.diff(Psn.add(g.base, g.m), base) > 0) {
                g.live = false;
                discardedGroups++;
            }
        }
        this.m = m;
        this.r = r;
        nextBase = base;
        return open(base, m, r);
    }

    /** Base of the oldest open group, or where the next one starts when none is open. */
    private int oldestBase() {
        int oldest = nextBase;
        for (Group g : slots) if (g.live && Psn.diff(g.base, oldest) < 0) oldest = g.base;
        return oldest;
    }

    /**
     * Passes over {@code n} whole groups no packet of which arrived, as opening and finishing each would count them, and
     * finishes every open group (the slots' worth of groups opened after them would).
     */
    private void pass(int n) {
        for (Group g : slots) if (g.live) finish(g);
        unrepairedPackets += (long) n * m;
        unrecoverableStripes += (long) n * Math.max(0, Math.min(r, m - r)); // stripes j < m - r hold two or more
        nextBase = Psn.add(nextBase, n * m);
    }

    /** Opens a group at {@code base}, finishing the oldest open group if every slot is taken. */
    private Group open(int base, int m, int r) {
        Group free = null;
        for (Group g : slots) {
            if (!g.live) {
                free = g;
                break;
            }
            if (free == null || Psn.diff(g.base, free.base) < 0) free = g;
        }
        if (free.live) finish(free);
        free.reset(base, m, r);
        groupsOpened++;
        if (Psn.diff(Psn.add(base, m), nextBase) > 0) nextBase = Psn.add(base, m);
        return free;
    }

    private void finish(Group g) {
        for (int j = 0; j < g.r; j++) {
            int missing = g.missing(j);
            if (missing >= 2) unrecoverableStripes++;
            unrepairedPackets += missing;
        }
        g.live = false;
    }

    private int tryRebuild(Group g, int j) {
        if (!g.parity[j] || g.missing(j) != 1) return ACCEPTED;
        int i = j;
        while (g.seen(i)) i += g.r;
        g.see(i);
        g.received[j]++;
        recoveredPsn = Psn.add(g.base, i);
        recoveredBuffer = g.acc[j];
        recoveredLength = g.lengthXor[j];
        recoveredCount++;
        return RECOVERED;
    }

    /** Open stripes of the group at {@code basePsn} that miss two or more data packets with their parity present. */
    public int unrecoverable(int basePsn) {
        int n = 0;
        for (Group g : slots) {
            if (!g.live || g.base != (basePsn & Psn.MASK)) continue;
            for (int j = 0; j < g.r; j++) if (g.parity[j] && g.missing(j) >= 2) n++;
        }
        return n;
    }

    /** Finishes every open group (counting what it could not repair). */
    public void flush() {
        for (Group g : slots) if (g.live) finish(g);
    }

    public int recoveredPsn() {
        return recoveredPsn;
    }

    /** The rebuilt bytes, [0, recoveredLength()); valid until the next call. */
    public DirectBuffer recovered() {
        return recoveredBuffer;
    }

    public int recoveredLength() {
        return recoveredLength;
    }

    /** Data packets rebuilt so far. */
    public long recoveredCount() {
        return recoveredCount;
    }

    /** Finished stripes that missed two or more data packets. */
    public long unrecoverableStripes() {
        return unrecoverableStripes;
    }

    /** Data packets of finished groups neither received nor rebuilt. */
    public long unrepairedPackets() {
        return unrepairedPackets;
    }

    /** Groups opened so far (each costs clearing its stripes): at most the slots per packet, however far ahead. */
    public long groupsOpened() {
        return groupsOpened;
    }

    /** Open groups dropped because a parity packet showed they were accumulated on the wrong boundaries. */
    public long discardedGroups() {
        return discardedGroups;
    }
}
