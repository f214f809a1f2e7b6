package org.urdma.transport.gsi;

/** DisconnectReply (IBTA Table 113). */
public final class CmDrep extends CmMessage {
    @Override
    public int attributeId() {
        return CmAttribute.DREP;
    }

    @Override
    protected int privateDataOffset() {
        return 8;
    }

    @Override
    public int privateDataLength() {
        return 224;
    }

    public int localCommId() { return i32(0); }
    public CmDrep localCommId(int v) { i32(0, v); return this; }
    public int remoteCommId() { return i32(4); }
    public CmDrep remoteCommId(int v) { i32(4, v); return this; }
}
