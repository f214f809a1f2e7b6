package org.urdma.transport.gsi;

/** DisconnectRequest (IBTA Table 112). */
public final class CmDreq extends CmMessage {
    @Override
    public int attributeId() {
        return CmAttribute.DREQ;
    }

    @Override
    protected int privateDataOffset() {
        return 12;
    }

    @Override
    public int privateDataLength() {
        return 220;
    }

    public int localCommId() { return i32(0); }
    public CmDreq localCommId(int v) { i32(0, v); return this; }
    public int remoteCommId() { return i32(4); }
    public CmDreq remoteCommId(int v) { i32(4, v); return this; }
    public int remoteQpn() { return u24(8); }
    public CmDreq remoteQpn(int v) { u24(8, v); return this; }
}
