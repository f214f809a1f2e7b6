package org.urdma.transport.gsi;

/** ServiceIDResReqResp (IBTA Table 120): the UD QP and Q_Key for a service ID, or why not. */
public final class SidrRep extends CmMessage {
    public static final int VALID = 0;
    public static final int SID_NOT_SUPPORTED = 1;
    public static final int REJECTED = 2;
    public static final int NO_QP = 3;

    @Override
    public int attributeId() {
        return CmAttribute.SIDR_REP;
    }

    @Override
    protected int privateDataOffset() {
        return 96;
    }

    @Override
    public int privateDataLength() {
        return 136;
    }

    public int requestId() { return i32(0); }
    public SidrRep requestId(int v) { i32(0, v); return this; }
    public int status() { return u8(4); }
    public SidrRep status(int v) { u8(4, v); return this; }
    public int qpn() { return u24(8); }
    public SidrRep qpn(int v) { u24(8, v); return this; }
    public long serviceId() { return i64(12); }
    public SidrRep serviceId(long v) { i64(12, v); return this; }
    public int qkey() { return i32(20); }
    public SidrRep qkey(int v) { i32(20, v); return this; }
}
