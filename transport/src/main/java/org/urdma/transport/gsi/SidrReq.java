package org.urdma.transport.gsi;

/** ServiceIDResReq (IBTA Table 119): which UD QP serves a service ID. */
public final class SidrReq extends CmMessage {
    @Override
    public int attributeId() {
        return CmAttribute.SIDR_REQ;
    }

    @Override
    protected int privateDataOffset() {
        return 16;
    }

    @Override
    public int privateDataLength() {
        return 216;
    }

    public int requestId() { return i32(0); }
    public SidrReq requestId(int v) { i32(0, v); return this; }
    public int partitionKey() { return u16(4); }
    public SidrReq partitionKey(int v) { u16(4, v); return this; }
    public long serviceId() { return i64(8); }
    public SidrReq serviceId(long v) { i64(8, v); return this; }
}
