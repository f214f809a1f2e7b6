package org.urdma.transport.wire;

import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;

/** ACK extended transport header (4 bytes): Syndrome (8), MSN (24), with syndrome helpers (WIRE.md §5). */
public final class Aeth {
    public static final int LENGTH = 4;
    public static final int TYPE_ACK = 0;
    public static final int TYPE_RNR_NAK = 1;
    public static final int TYPE_RESERVED = 2;
    public static final int TYPE_NAK = 3;
    /** ACK credit value meaning "no credit count" (end-to-end flow control not in use). */
    public static final int CREDITS_INVALID = 0x1F;
    /** Whole-syndrome forms of the type bits (6-5): ACK, RNR NAK, NAK; {@link #SYNDROME_TYPE} masks them. */
    public static final int SYNDROME_ACK = TYPE_ACK << 5;
    public static final int SYNDROME_RNR_NAK = TYPE_RNR_NAK << 5;
    public static final int SYNDROME_NAK = TYPE_NAK << 5;
    public static final int SYNDROME_TYPE = 0x60;
    public static final int NAK_PSN_SEQUENCE_ERROR = 0;
    public static final int NAK_INVALID_REQUEST = 1;
    public static final int NAK_REMOTE_ACCESS_ERROR = 2;
    public static final int NAK_REMOTE_OPERATIONAL_ERROR = 3;
    public static final int NAK_INVALID_RD_REQUEST = 4;
    private static final int[] RNR_TIMER_MICROS = {
        655360, 10, 20, 30, 40, 60, 80, 120, 160, 240, 320, 480, 640, 960, 1280, 1920, 2560, 3840, 5120, 7680,
        10240, 15360, 20480, 30720, 40960, 61440, 81920, 122880, 163840, 245760, 327680, 491520 };

    private Aeth() {
    }

    public static int syndrome(final DirectBuffer b, final int o) { return Bytes.u8(b, o); }
    public static int msn(final DirectBuffer b, final int o) { return Bytes.u24(b, o + 1); }

    public static void put(final MutableDirectBuffer b, final int o, final int syndrome, final int msn) {
        Bytes.u8(b, o, syndrome);
        Bytes.u24(b, o + 1, msn);
    }

    /** Syndrome type: {@link #TYPE_ACK}, {@link #TYPE_RNR_NAK}, {@link #TYPE_RESERVED} or {@link #TYPE_NAK}. */
    public static int type(final int syndrome) { return (syndrome >> 5) & 3; }
    /** Low five bits: credit count (ACK), RNR timer code (RNR NAK) or NAK code (NAK). */
    public static int value(final int syndrome) { return syndrome & 0x1F; }
    public static boolean isAck(final int syndrome) { return type(syndrome) == TYPE_ACK; }
    public static boolean isRnrNak(final int syndrome) { return type(syndrome) == TYPE_RNR_NAK; }
    public static boolean isNak(final int syndrome) { return type(syndrome) == TYPE_NAK; }
    public static int ack(final int credits) { return credits & 0x1F; }
    public static int rnrNak(final int timerCode) { return TYPE_RNR_NAK << 5 | (timerCode & 0x1F); }
    public static int nak(final int nakCode) { return TYPE_NAK << 5 | (nakCode & 0x1F); }

    /** RNR timer code (0..31) to microseconds (WIRE.md §5; code 0 is the longest, 655.36 ms). */
    public static int rnrTimerMicros(final int code) {
        if (code < 0 || code > 31) {
            throw new IllegalArgumentException("rnr timer code: must be 0..31, was " + code);
        }
        return RNR_TIMER_MICROS[code];
    }
}
