package org.urdma.transport.wire;

import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;

/**
 * IEEE 802.3x PAUSE and 802.1Qbb PFC frames (MAC Control, EtherType 0x8808, WIRE.md §8):
 * {@code DA 01:80:C2:00:00:01 | SA | 0x8808 | opcode (2) | ...}, zero-padded to 60 bytes.
 * PFC: opcode 0x0101, class-enable vector (2: byte 0 reserved, byte 1 bit p = priority p), 8 x 2-byte pause times
 * in quanta (priority 0 first). PAUSE: opcode 0x0001, one 2-byte time. A time of 0 resumes.
 */
public final class MacControlFrame {
    public static final long DST_MAC = 0x0180_C200_0001L;
    public static final int OPCODE_PAUSE = 0x0001;
    public static final int OPCODE_PFC = 0x0101;
    public static final int PRIORITIES = 8;
    private static final int OPCODE_AT = 14;
    private static final int BODY_AT = 16;

    private MacControlFrame() {
    }

    /**
     * Writes a PFC frame; {@code pauseQuanta[p]} is used for each priority p whose bit is set in
     * {@code classEnable}, other times are written as 0. Returns the frame length (60).
     */
    public static int putPfc(
        final MutableDirectBuffer b, final int o, final long srcMac, final int classEnable, final int[] pauseQuanta) {
        if ((classEnable & ~0xFF) != 0) {
            throw new IllegalArgumentException("classEnable: 8-bit vector expected, was 0x" + Integer.toHexString(classEnable));
        }
        if (pauseQuanta.length < PRIORITIES) {
            throw new IllegalArgumentException("pauseQuanta: need 8 entries, had " + pauseQuanta.length);
        }
        header(b, o, srcMac, OPCODE_PFC);
        Bytes.u16(b, o + BODY_AT, classEnable);
        for (int p = 0; p < PRIORITIES; p++) {
            Bytes.u16(b, o + BODY_AT + 2 + 2 * p, (classEnable & (1 << p)) != 0 ? pauseQuanta[p] : 0);
        }
        return AbstractFraming.fill(b, o, o + BODY_AT + 2 + 2 * PRIORITIES);
    }

    /** Writes an 802.3x PAUSE frame pausing every priority for {@code quanta}; returns 60. */
    public static int putPause(final MutableDirectBuffer b, final int o, final long srcMac, final int quanta) {
        header(b, o, srcMac, OPCODE_PAUSE);
        Bytes.u16(b, o + BODY_AT, quanta);
        return AbstractFraming.fill(b, o, o + BODY_AT + 2);
    }

    private static void header(final MutableDirectBuffer b, final int o, final long srcMac, final int opcode) {
        EthernetHeader.putMacs(b, o, DST_MAC, srcMac);
        Bytes.u16(b, o + 12, EthernetHeader.TYPE_MAC_CONTROL);
        Bytes.u16(b, o + OPCODE_AT, opcode);
    }

    /** True for an untagged MAC Control frame long enough to hold a PAUSE or PFC body. */
    public static boolean isMacControl(final DirectBuffer b, final int o, final int length) {
        return length >= BODY_AT + 2 && EthernetHeader.type(b, o) == EthernetHeader.TYPE_MAC_CONTROL;
    }

    public static boolean isPfc(final DirectBuffer b, final int o, final int length) {
        return isMacControl(b, o, length) && Bytes.u16(b, o + OPCODE_AT) == OPCODE_PFC &&
            length >= BODY_AT + 2 + 2 * PRIORITIES;
    }

    public static boolean isPause(final DirectBuffer b, final int o, final int length) {
        return isMacControl(b, o, length) && Bytes.u16(b, o + OPCODE_AT) == OPCODE_PAUSE;
    }

    public static int opcode(final DirectBuffer b, final int o) { return Bytes.u16(b, o + OPCODE_AT); }
    public static long srcMac(final DirectBuffer b, final int o) { return EthernetHeader.src(b, o); }
    /** PFC class-enable vector (bit p = priority p; the reserved high byte is ignored). */
    public static int classEnable(final DirectBuffer b, final int o) { return Bytes.u8(b, o + BODY_AT + 1); }
    /** PFC pause time of {@code priority} in quanta. */
    public static int pfcQuanta(final DirectBuffer b, final int o, final int priority) {
        return Bytes.u16(b, o + BODY_AT + 2 + 2 * priority);
    }
    /** 802.3x PAUSE time in quanta. */
    public static int pauseQuanta(final DirectBuffer b, final int o) { return Bytes.u16(b, o + BODY_AT); }

    /**
     * One quantum is 512 bit times: nanoseconds for {@code quanta} at {@code bitsPerSecond}, rounded up (a pause that
     * ends early by the rounding would let a frame start while the sender still has to wait).
     */
    public static long quantaToNanos(final int quanta, final long bitsPerSecond) {
        return Math.ceilDiv(quanta * 512L * 1_000_000_000L, bitsPerSecond);
    }

    /** Smallest number of quanta covering {@code nanos} at {@code bitsPerSecond} (capped at 0xFFFF). */
    public static int nanosToQuanta(final long nanos, final long bitsPerSecond) {
        final long bitTimes = Math.ceilDiv(nanos * bitsPerSecond, 1_000_000_000L);
        return (int)Math.min(0xFFFF, Math.ceilDiv(bitTimes, 512L));
    }
}
