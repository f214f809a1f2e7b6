package org.urdma.switchemu.frame;

import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;

import java.nio.ByteOrder;

/**
 * IEEE 802.3x PAUSE and 802.1Qbb PFC frames (MAC Control, EtherType 0x8808; WIRE.md §8): parse and build.
 * Times are in quanta of 512 bit times; 0 means resume.
 */
public final class MacControl {
    public static final int OPCODE_PAUSE = 0x0001;
    public static final int OPCODE_PFC = 0x0101;
    public static final int MIN_FRAME = 60;
    public static final int PRIORITIES = 8;

    private MacControl() {
    }

    /** Opcode of a MAC Control frame whose control payload starts at {@code payload} (absolute), or -1 if too short. */
    public static int opcode(DirectBuffer buffer, int payload, int end) {
        return end - payload < 2 ? -1 : buffer.getShort(payload, ByteOrder.BIG_ENDIAN) & 0xFFFF;
    }

    /** PFC class-enable vector (byte 1 of the 2-byte field; bit p = priority p), or -1 if truncated. */
    public static int pfcClassEnable(DirectBuffer buffer, int payload, int end) {
        return end - payload < 4 + 2 * PRIORITIES ? -1 : buffer.getByte(payload + 3) & 0xFF;
    }

    /** PFC pause time for a priority, in quanta. */
    public static int pfcTime(DirectBuffer buffer, int payload, int priority) {
        return buffer.getShort(payload + 4 + 2 * priority, ByteOrder.BIG_ENDIAN) & 0xFFFF;
    }

    /** 802.3x PAUSE time in quanta, or -1 if truncated. */
    public static int pauseTime(DirectBuffer buffer, int payload, int end) {
        return end - payload < 4 ? -1 : buffer.getShort(payload + 2, ByteOrder.BIG_ENDIAN) & 0xFFFF;
    }

    /**
     * Writes a 60-byte PFC frame at {@code offset}: DA 01:80:C2:00:00:01, the given SA, opcode 0x0101,
     * class-enable vector and eight times ({@code times[p]} used where bit p is set, else 0). Returns 60.
     */
    public static int writePfc(MutableDirectBuffer buffer, int offset, long source, int classEnable, int[] times) {
        writeHeader(buffer, offset, source, OPCODE_PFC);
        buffer.putShort(offset + 16, (short) (classEnable & 0xFF), ByteOrder.BIG_ENDIAN);
        for (int p = 0; p < PRIORITIES; p++) {
            int time = (classEnable & (1 << p)) != 0 ? times[p] : 0;
            buffer.putShort(offset + 18 + 2 * p, (short) time, ByteOrder.BIG_ENDIAN);
        }
        buffer.setMemory(offset + 34, MIN_FRAME - 34, (byte) 0);
        return MIN_FRAME;
    }

    /** Writes a 60-byte 802.3x PAUSE frame. Returns 60. */
    public static int writePause(MutableDirectBuffer buffer, int offset, long source, int quanta) {
        writeHeader(buffer, offset, source, OPCODE_PAUSE);
        buffer.putShort(offset + 16, (short) quanta, ByteOrder.BIG_ENDIAN);
        buffer.setMemory(offset + 18, MIN_FRAME - 18, (byte) 0);
        return MIN_FRAME;
    }

    private static void writeHeader(MutableDirectBuffer buffer, int offset, long source, int opcode) {
        Mac.write(buffer, offset, Mac.MAC_CONTROL);
        Mac.write(buffer, offset + 6, source);
        buffer.putShort(offset + 12, (short) FrameView.ETHERTYPE_MAC_CONTROL, ByteOrder.BIG_ENDIAN);
        buffer.putShort(offset + 14, (short) opcode, ByteOrder.BIG_ENDIAN);
    }

    /** Duration of {@code quanta} pause quanta (512 bit times each) at {@code rateBps}, in ns, rounded up. */
    public static long quantaToNanos(int quanta, long rateBps) {
        return ceilDiv(quanta * 512L * 1_000_000_000L, rateBps);
    }

    private static long ceilDiv(long a, long b) {
        return (a + b - 1) / b;
    }
}
