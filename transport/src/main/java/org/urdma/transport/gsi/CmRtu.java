package org.urdma.transport.gsi;

/** ReadyToUse (IBTA Table 111): the active side's QP is in RTS. */
public final class CmRtu extends CmMessage {
    @Override
    public int attributeId() {
        return CmAttribute.RTU;
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
    public CmRtu localCommId(int v) { i32(0, v); return this; }
    public int remoteCommId() { return i32(4); }
    public CmRtu remoteCommId(int v) { i32(4, v); return this; }
}
