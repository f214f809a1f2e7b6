package org.urdma.transport.gsi;

/** MsgRcptAck (IBTA Table 107): "received, the answer will take up to the service timeout". */
public final class CmMra extends CmMessage {
    /** Message MRAed: REQ 0, REP 1, LAP 2. */
    public static final int MRAED_REQ = 0;
    public static final int MRAED_REP = 1;

    @Override
    public int attributeId() {
        return CmAttribute.MRA;
    }

    @Override
    protected int privateDataOffset() {
        return 10;
    }

    @Override
    public int privateDataLength() {
        return 222;
    }

    public int localCommId() { return i32(0); }
    public CmMra localCommId(int v) { i32(0, v); return this; }
    public int remoteCommId() { return i32(4); }
    public CmMra remoteCommId(int v) { i32(4, v); return this; }
    public int messageMraed() { return bits(8, 0, 2); }
    public CmMra messageMraed(int v) { bits(8, 0, 2, v); return this; }
    public int serviceTimeout() { return bits(9, 0, 5); }
    public CmMra serviceTimeout(int v) { bits(9, 0, 5, v); return this; }
}
