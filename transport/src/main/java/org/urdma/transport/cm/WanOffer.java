package org.urdma.transport.cm;

import java.util.Locale;
import org.urdma.transport.wire.OpcodeTable;

/**
 * The WAN-mode features one side offers in urdma's exchange (WIRE.md §10): UETH flags (timestamps, per-packet RETH,
 * SACK, FEC parity), the rate control by name, its reference rate, and the FEC group shape. Both sides' offers are
 * intersected ({@link #agree}); nothing is on unless both ask for it, and never by default (DC mode).
 *
 * @param uethFlags     {@link OpcodeTable#UETH_TS} | {@link OpcodeTable#UETH_PER_PACKET_RETH} | {@link OpcodeTable#UETH_SACK}
 *                      | {@link OpcodeTable#UETH_FEC}; 0 = DC mode
 * @param rateControl   {@code none}, {@code rrcc} or {@code dcqcn}
 * @param referenceBps  RRCC's reference rate in bit/s (0 = none)
 * @param fecData       FEC data packets per group (0 = adapt to the measured loss)
 * @param fecParity     FEC parity packets per group (0 with fecData 0 = adapt)
 * @param maxBps        RRCC's cap in bit/s (0 = none): the QP never paces faster, whatever it measures
 */
public record WanOffer(int uethFlags, String rateControl, long referenceBps, int fecData, int fecParity, long maxBps) {
    /** Rate controls by their code in the exchange (index = code). */
    static final String[] RATE_CONTROLS = {"none", "rrcc", "dcqcn"};
    /** DC mode: no URDMA headers. */
    public static final WanOffer NONE = new WanOffer(0, "none", 0, 0, 0);
    /** The paper's full set (urdma perf --wan): TS, per-packet RETH, SACK, FEC with an adaptive group, RRCC. */
    public static final WanOffer FULL = new WanOffer(OpcodeTable.UETH_TS | OpcodeTable.UETH_PER_PACKET_RETH
            | OpcodeTable.UETH_SACK | OpcodeTable.UETH_FEC, "rrcc", 0, 0, 0);

    /** An offer without a cap. */
    public WanOffer(int uethFlags, String rateControl, long referenceBps, int fecData, int fecParity) {
        this(uethFlags, rateControl, referenceBps, fecData, fecParity, 0);
    }

    public WanOffer {
        if (maxBps < 0) throw new IllegalArgumentException("max: must be >= 0, was " + maxBps);
        if ((uethFlags & ~0xF0) != 0) throw new IllegalArgumentException("uethFlags: only 0x80|0x40|0x20|0x10, was 0x" + Integer.toHexString(uethFlags));
        if (rateCode(rateControl) < 0) throw new IllegalArgumentException("cc: unknown '" + rateControl + "', expected none, rrcc or dcqcn");
        if (referenceBps < 0) throw new IllegalArgumentException("ref: must be >= 0, was " + referenceBps);
        if (fecData < 0 || fecData > 255 || fecParity < 0 || fecParity > 255 || (fecData == 0) != (fecParity == 0)
                || fecParity > Math.max(1, fecData)) {
            throw new IllegalArgumentException("fec: M,R with 1 <= R <= M <= 255 (or auto), was " + fecData + "," + fecParity);
        }
        if ((uethFlags & OpcodeTable.UETH_SACK) != 0 && (uethFlags & OpcodeTable.UETH_PER_PACKET_RETH) == 0) {
            throw new IllegalArgumentException("reliability: sack needs per-packet RETH (out-of-order placement)");
        }
    }

    /** Whether any URDMA header is on (the QP runs in WAN mode). */
    public boolean on() {
        return uethFlags != 0;
    }

    public boolean has(int flag) {
        return (uethFlags & flag) != 0;
    }

    /**
     * What both sides run: the common UETH flags (SACK only with per-packet RETH), the rate control when both name the
     * same one (else none), the lower non-zero reference rate and cap, and the smaller FEC group (auto when either says auto).
     */
    public WanOffer agree(WanOffer other) {
        int flags = uethFlags & other.uethFlags;
        if ((flags & OpcodeTable.UETH_PER_PACKET_RETH) == 0) flags &= ~OpcodeTable.UETH_SACK;
        String cc = rateControl.equals(other.rateControl) ? rateControl : "none";
        long ref = lowerNonZero(referenceBps, other.referenceBps);
        long max = lowerNonZero(maxBps, other.maxBps);
        boolean fec = (flags & OpcodeTable.UETH_FEC) != 0;
        boolean auto = fecData == 0 || other.fecData == 0;
        int m = !fec || auto ? 0 : Math.min(fecData, other.fecData);
        int r = !fec || auto ? 0 : Math.min(m, Math.max(fecParity, other.fecParity));
        return new WanOffer(flags, flags == 0 ? "none" : cc, flags == 0 ? 0 : ref, m, r, flags == 0 ? 0 : max);
    }

    private static long lowerNonZero(long a, long b) {
        return a == 0 ? b : b == 0 ? a : Math.min(a, b);
    }

    /** {@return this offer with RRCC's cap at {@code bps} (0: none)} */
    public WanOffer withMax(long bps) {
        return new WanOffer(uethFlags, rateControl, referenceBps, fecData, fecParity, bps);
    }

    /**
     * The offer a command line asks for: {@code --wan} (the full set), {@code --reliability sack}, {@code --fec M,R|auto},
     * {@code --cc rrcc[,ref=RATE]} (RATE with an optional k/M/G suffix, bit/s). Null or empty options are not given.
     */
    public static WanOffer parse(boolean wan, String reliability, String fec, String cc) {
        int flags = wan ? FULL.uethFlags : 0;
        String rc = wan ? FULL.rateControl : "none";
        long ref = 0;
        int m = 0;
        int r = 0;
        if (reliability != null && reliability.trim().equalsIgnoreCase("sack")) {
            flags |= OpcodeTable.UETH_SACK | OpcodeTable.UETH_PER_PACKET_RETH | OpcodeTable.UETH_TS;
        }
        if (fec != null && !fec.isBlank()) {
            flags |= OpcodeTable.UETH_FEC | OpcodeTable.UETH_SACK | OpcodeTable.UETH_PER_PACKET_RETH | OpcodeTable.UETH_TS;
            if (!fec.trim().equalsIgnoreCase("auto")) {
                String[] p = fec.trim().split(",");
                if (p.length != 2) throw new IllegalArgumentException("--fec: M,R or auto, was '" + fec + "'");
                try {
                    m = Integer.parseInt(p[0].trim());
                    r = Integer.parseInt(p[1].trim());
                } catch (NumberFormatException e) {
                    throw new IllegalArgumentException("--fec: M,R are whole numbers, was '" + fec + "'");
                }
                if (m < 1 || r < 1) throw new IllegalArgumentException("--fec: M,R with 1 <= R <= M <= 255, was '" + fec + "'");
            }
        }
        if (cc != null && !cc.isBlank()) {
            String[] p = cc.trim().toLowerCase(Locale.ROOT).split(",");
            rc = p[0];
            if (rateCode(rc) < 0) throw new IllegalArgumentException("--cc: unknown '" + p[0] + "', expected none, rrcc or dcqcn");
            for (int i = 1; i < p.length; i++) {
                if (!p[i].startsWith("ref=")) throw new IllegalArgumentException("--cc: unknown parameter '" + p[i] + "', expected ref=RATE");
                ref = rate(p[i].substring(4));
            }
            if (ref != 0 && !rc.equals("rrcc")) throw new IllegalArgumentException("--cc: ref= is RRCC's reference rate, not " + rc + "'s");
            if (rc.equals("rrcc")) flags |= OpcodeTable.UETH_TS | OpcodeTable.UETH_PER_PACKET_RETH | OpcodeTable.UETH_SACK;
        }
        return flags == 0 && rc.equals("none") ? NONE : new WanOffer(flags, rc, ref, m, r);
    }

    private static long rate(String s) {
        String t = s.trim().toLowerCase(Locale.ROOT).replace("bit/s", "").replace("bps", "");
        long unit = 1;
        if (t.endsWith("k")) unit = 1_000L;
        if (t.endsWith("m")) unit = 1_000_000L;
        if (t.endsWith("g")) unit = 1_000_000_000L;
        if (unit != 1) t = t.substring(0, t.length() - 1);
        try {
            double v = Double.parseDouble(t);
            if (v <= 0) throw new NumberFormatException();
            return Math.round(v * unit);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("--cc: ref= needs a positive rate like 800M or 10G (bit/s), was '" + s + "'");
        }
    }

    static int rateCode(String name) {
        for (int i = 0; i < RATE_CONTROLS.length; i++) if (RATE_CONTROLS[i].equals(name)) return i;
        return -1;
    }

    @Override
    public String toString() {
        if (!on()) return "dc";
        StringBuilder b = new StringBuilder("wan[");
        if (has(OpcodeTable.UETH_TS)) b.append("ts ");
        if (has(OpcodeTable.UETH_PER_PACKET_RETH)) b.append("reth ");
        if (has(OpcodeTable.UETH_SACK)) b.append("sack ");
        if (has(OpcodeTable.UETH_FEC)) b.append(fecData == 0 ? "fec=auto " : "fec=" + fecData + "," + fecParity + " ");
        b.append("cc=").append(rateControl);
        if (referenceBps != 0) b.append(",ref=").append(referenceBps);
        if (maxBps != 0) b.append(",max=").append(maxBps);
        return b.append(']').toString();
    }
}
