package org.urdma.transport.impair;

import java.util.Arrays;
import java.util.TreeSet;

/**
 * Which RoCE packets a {@link PsnDropRule} drops: the first transmission of the packets at these PSN offsets of one
 * destination QP ({@code qp}, or every QP when -1). Offsets count from the first PSN the rule sees for that QP (0 = its
 * first packet), so one pattern means the same packets in every world whatever the random initial PSNs and QPNs.
 * Written {@code 2,4-5,100-103}. Immutable; each link makes its own rule ({@link #newRule()}).
 */
public final class PsnPattern {
    /** Most offsets one pattern lists (each tracked QP keeps one bit per offset). */
    public static final int MAX_OFFSETS = 1 << 16;
    /** Offsets stay below half the PSN space, so "after the first PSN" is unambiguous. */
    public static final int MAX_OFFSET = (1 << 23) - 1;

    private final int qp;
    private final int[] offsets;

    private PsnPattern(int qp, int[] offsets) {
        this.qp = qp;
        this.offsets = offsets;
    }

    /** Parses {@code psns} ("2,4-5,100-103") for destination QP {@code qp} (-1: any); errors name the field. */
    public static PsnPattern of(int qp, String psns) {
        if (qp < -1 || qp > 0xFFFFFF) throw new IllegalArgumentException("qp: must be 0..0xFFFFFF, was " + qp);
        if (psns == null || psns.isBlank()) throw new IllegalArgumentException("psns: empty, expected e.g. 2,4-5,100-103");
        TreeSet<Integer> set = new TreeSet<>();
        for (String part : psns.split(",")) {
            String p = part.trim();
            int dash = p.indexOf('-', 1);
            int from = offset(dash < 0 ? p : p.substring(0, dash), psns);
            int to = dash < 0 ? from : offset(p.substring(dash + 1), psns);
            if (to < from) throw new IllegalArgumentException("psns: range '" + p + "' runs backwards");
            if (set.size() + (long) (to - from) >= MAX_OFFSETS) {
                throw new IllegalArgumentException("psns: more than " + MAX_OFFSETS + " PSNs in '" + psns + "'");
            }
            for (int i = from; i <= to; i++) set.add(i);
        }
        return new PsnPattern(qp, set.stream().mapToInt(Integer::intValue).toArray());
    }

    private static int offset(String s, String all) {
        try {
            int v = Integer.parseInt(s.trim());
            if (v < 0 || v > MAX_OFFSET) throw new NumberFormatException();
            return v;
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("psns: '" + s.trim() + "' in '" + all + "' is not a PSN offset 0.." + MAX_OFFSET);
        }
    }

    /** A fresh rule (its own per-QP state and drop count) for one link of one world. */
    public PsnDropRule newRule() {
        return new PsnDropRule(this);
    }

    /** The destination QP matched, or -1 for any. */
    public int qp() {
        return qp;
    }

    /** Number of offsets listed. */
    public int size() {
        return offsets.length;
    }

    /** Index of {@code offset} in the sorted list, or negative. */
    int indexOf(int offset) {
        return Arrays.binarySearch(offsets, offset);
    }

    @Override
    public String toString() {
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < offsets.length; i++) {
            int j = i;
            while (j + 1 < offsets.length && offsets[j + 1] == offsets[j] + 1) j++;
            if (b.length() > 0) b.append(',');
            b.append(offsets[i]);
            if (j > i) b.append('-').append(offsets[j]);
            i = j;
        }
        return (qp < 0 ? "any qp" : "qp 0x" + Integer.toHexString(qp)) + " psns " + b;
    }
}
