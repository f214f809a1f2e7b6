package org.urdma.transport.wire;

import java.nio.ByteOrder;

import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;

/**
 * URDMA's in-band telemetry (INT) stack for HPCC (44 bytes): a trailer between the pad and the ICRC of a RoCEv2
 * packet whose BTH has resv7 bit {@link OpcodeTable#RESV7_INT}. Header (4): flags (8: {@link #FLAG_ECHO} on the copy a
 * responder returns in its ACK, which switches leave alone) | hop count (8) | reserved (16); then {@link #MAX_HOPS}
 * hop records of 8 bytes, the first switch's first, each one 64-bit word: rate code (4) | queue length (16, in
 * {@link #UNIT}-byte units, saturating) | transmitted bytes (20, in {@link #UNIT}-byte units, modulo 2^20) |
 * timestamp (24, ns modulo 2^24). The layout and widths follow HPCC's simulator ({@code IntHop}); the stack has a
 * fixed size so a switch stamps in place and no frame changes length on its way.
 */
public final class IntStack {
    public static final int LENGTH = 44;
    public static final int MAX_HOPS = 5;
    public static final int HOP_LENGTH = 8;
    public static final int FLAG_ECHO = 0x80;
    /** Bytes per unit of the queue-length and transmitted-bytes fields. */
    public static final int UNIT = 128;
    public static final long QLEN_MAX = 0xFFFFL;
    public static final long BYTES_MOD = 1L << 20;
    public static final long TIME_MOD = 1L << 24;
    /** Link rate of each rate code, bit/s; code 0: a rate not in the table (the hop is skipped). */
    private static final long[] RATES = {0, 1_000_000_000L, 10_000_000_000L, 25_000_000_000L, 40_000_000_000L,
        50_000_000_000L, 100_000_000_000L, 200_000_000_000L, 400_000_000_000L, 800_000_000_000L};

    private IntStack() {
    }

    /** An empty stack (a sender's, no hops) at {@code o}. */
    public static void putEmpty(final MutableDirectBuffer b, final int o) {
        b.setMemory(o, LENGTH, (byte) 0);
    }

    public static int flags(final DirectBuffer b, final int o) {
        return Bytes.u8(b, o);
    }

    public static boolean echo(final DirectBuffer b, final int o) {
        return (Bytes.u8(b, o) & FLAG_ECHO) != 0;
    }

    public static void echo(final MutableDirectBuffer b, final int o, final boolean on) {
        Bytes.u8(b, o, on ? Bytes.u8(b, o) | FLAG_ECHO : Bytes.u8(b, o) & ~FLAG_ECHO);
    }

    /** Hops stamped so far, at most {@link #MAX_HOPS} (a larger count on the wire reads as the maximum). */
    public static int hops(final DirectBuffer b, final int o) {
        return Math.min(MAX_HOPS, Bytes.u8(b, o + 1));
    }

    /** The rate code of {@code rateBps}, 0 when the table lacks it. */
    public static int rateCode(final long rateBps) {
        for (int i = 1; i < RATES.length; i++) {
            if (RATES[i] == rateBps) {
                return i;
            }
        }
        return 0;
    }

    /**
     * A switch's egress stamp: appends a hop of a port at {@code rateBps} with {@code queueBytes} waiting, having sent
     * {@code txBytes} in all, at {@code nowNs}. Returns false (stamping nothing) on an echo or a full stack.
     */
    public static boolean push(final MutableDirectBuffer b, final int o, final long rateBps, final long queueBytes,
                               final long txBytes, final long nowNs) {
        final int n = Bytes.u8(b, o + 1);
        if ((Bytes.u8(b, o) & FLAG_ECHO) != 0 || n >= MAX_HOPS) {
            return false;
        }
        final long q = Math.min(QLEN_MAX, queueBytes / UNIT);
        final long word = (long) rateCode(rateBps) << 60 | q << 44 | ((txBytes / UNIT) & (BYTES_MOD - 1)) << 24
            | (nowNs & (TIME_MOD - 1));
        b.putLong(o + 4 + n * HOP_LENGTH, word, ByteOrder.BIG_ENDIAN);
        Bytes.u8(b, o + 1, n + 1);
        return true;
    }

    private static long word(final DirectBuffer b, final int o, final int hop) {
        return b.getLong(o + 4 + hop * HOP_LENGTH, ByteOrder.BIG_ENDIAN);
    }

    /** Link rate of hop {@code hop}, bit/s; 0 when its code is unknown. */
    public static long rateBps(final DirectBuffer b, final int o, final int hop) {
        final int code = (int) (word(b, o, hop) >>> 60);
        return code < RATES.length ? RATES[code] : 0;
    }

    /** Queue length at hop {@code hop}, bytes (a multiple of {@link #UNIT}). */
    public static long queueBytes(final DirectBuffer b, final int o, final int hop) {
        return (word(b, o, hop) >>> 44 & QLEN_MAX) * UNIT;
    }

    /** Transmitted bytes of hop {@code hop} in {@link #UNIT}s, modulo 2^20. */
    public static long txUnits(final DirectBuffer b, final int o, final int hop) {
        return word(b, o, hop) >>> 24 & (BYTES_MOD - 1);
    }

    /** Timestamp of hop {@code hop}, ns modulo 2^24. */
    public static long timeNs(final DirectBuffer b, final int o, final int hop) {
        return word(b, o, hop) & (TIME_MOD - 1);
    }

    /** The 64-bit record of hop {@code hop}, as a sender keeps it from one ACK to the next. */
    public static long hopWord(final DirectBuffer b, final int o, final int hop) {
        return word(b, o, hop);
    }

    /** Bytes sent between two records of one hop ({@code earlier}, {@code later}), modulo the field's range. */
    public static long bytesBetween(final long earlier, final long later) {
        return ((later >>> 24) - (earlier >>> 24) & (BYTES_MOD - 1)) * UNIT;
    }

    /** Ns between two records of one hop, modulo the field's range. */
    public static long nanosBetween(final long earlier, final long later) {
        return (later - earlier) & (TIME_MOD - 1);
    }

    /** Queue length of a record, bytes. */
    public static long queueBytes(final long word) {
        return (word >>> 44 & QLEN_MAX) * UNIT;
    }

    /** Link rate of a record, bit/s (0: unknown code). */
    public static long rateBps(final long word) {
        final int code = (int) (word >>> 60);
        return code < RATES.length ? RATES[code] : 0;
    }
}
