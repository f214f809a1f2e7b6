package org.urdma.transport.gsi;

import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;

/**
 * The common MAD header (IBTA 13.4.3, 24 bytes) at the start of a 256-byte management datagram: BaseVersion,
 * MgmtClass, ClassVersion, R|Method, Status, ClassSpecific, TransactionID (64), AttributeID, reserved,
 * AttributeModifier. Read and written in place.
 */
public final class Mad {
    /** A GSI MAD, header included (the payload of one UD SEND on QP1). */
    public static final int SIZE = 256;
    public static final int HEADER = 24;
    public static final int BASE_VERSION = 1;
    public static final int CLASS_CM = 0x07;
    public static final int CM_CLASS_VERSION = 2;
    public static final int METHOD_GET = 0x01;
    public static final int METHOD_SET = 0x02;
    public static final int METHOD_SEND = 0x03;
    public static final int METHOD_GET_RESP = 0x81;
    /** RoCE's GSI: QP1 with this Q_Key and the default P_Key. */
    public static final int GSI_QPN = 1;
    public static final int GSI_QKEY = 0x80010000;

    private Mad() {
    }

    public static int baseVersion(DirectBuffer b, int o) {
        return b.getByte(o) & 0xFF;
    }

    public static int mgmtClass(DirectBuffer b, int o) {
        return b.getByte(o + 1) & 0xFF;
    }

    public static int classVersion(DirectBuffer b, int o) {
        return b.getByte(o + 2) & 0xFF;
    }

    /** Method with the R (response) bit: 0x81 is GetResp. */
    public static int method(DirectBuffer b, int o) {
        return b.getByte(o + 3) & 0xFF;
    }

    public static int status(DirectBuffer b, int o) {
        return b.getShort(o + 4, java.nio.ByteOrder.BIG_ENDIAN) & 0xFFFF;
    }

    public static long transactionId(DirectBuffer b, int o) {
        return b.getLong(o + 8, java.nio.ByteOrder.BIG_ENDIAN);
    }

    public static int attributeId(DirectBuffer b, int o) {
        return b.getShort(o + 16, java.nio.ByteOrder.BIG_ENDIAN) & 0xFFFF;
    }

    public static int attributeModifier(DirectBuffer b, int o) {
        return b.getInt(o + 20, java.nio.ByteOrder.BIG_ENDIAN);
    }

    /** Clears the 256 bytes at {@code o} and writes a header with status, class-specific and modifier 0. */
    public static void start(MutableDirectBuffer b, int o, int mgmtClass, int classVersion, int method, long tid, int attributeId) {
        b.setMemory(o, SIZE, (byte) 0);
        b.putByte(o, (byte) BASE_VERSION);
        b.putByte(o + 1, (byte) mgmtClass);
        b.putByte(o + 2, (byte) classVersion);
        b.putByte(o + 3, (byte) method);
        b.putLong(o + 8, tid, java.nio.ByteOrder.BIG_ENDIAN);
        b.putShort(o + 16, (short) attributeId, java.nio.ByteOrder.BIG_ENDIAN);
    }

    public static void status(MutableDirectBuffer b, int o, int status) {
        b.putShort(o + 4, (short) status, java.nio.ByteOrder.BIG_ENDIAN);
    }

    public static void attributeModifier(MutableDirectBuffer b, int o, int v) {
        b.putInt(o + 20, v, java.nio.ByteOrder.BIG_ENDIAN);
    }
}
