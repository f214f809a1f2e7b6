package org.urdma.transport.gsi;

/** ConnectReply (IBTA Table 110): the passive side's QP and what it accepted. */
public final class CmRep extends CmMessage {
    @Override
    public int attributeId() {
        return CmAttribute.REP;
    }

    @Override
    protected int privateDataOffset() {
        return 36;
    }

    @Override
    public int privateDataLength() {
        return 196;
    }

    public int localCommId() { return i32(0); }
    public CmRep localCommId(int v) { i32(0, v); return this; }
    public int remoteCommId() { return i32(4); }
    public CmRep remoteCommId(int v) { i32(4, v); return this; }
    public int localQkey() { return i32(8); }
    public CmRep localQkey(int v) { i32(8, v); return this; }
    public int localQpn() { return u24(12); }
    public CmRep localQpn(int v) { u24(12, v); return this; }
    public int startingPsn() { return u24(20); }
    public CmRep startingPsn(int v) { u24(20, v); return this; }
    public int responderResources() { return u8(24); }
    public CmRep responderResources(int v) { u8(24, v); return this; }
    public int initiatorDepth() { return u8(25); }
    public CmRep initiatorDepth(int v) { u8(25, v); return this; }
    public int targetAckDelay() { return bits(26, 0, 5); }
    public CmRep targetAckDelay(int v) { bits(26, 0, 5, v); return this; }
    /** 0 accepted, 1 unsupported, 2 rejected (alternate path). */
    public int failoverAccepted() { return bits(26, 5, 2); }
    public CmRep failoverAccepted(int v) { bits(26, 5, 2, v); return this; }
    public boolean endToEndFlowControl() { return bits(26, 7, 1) != 0; }
    public CmRep endToEndFlowControl(boolean v) { bits(26, 7, 1, v ? 1 : 0); return this; }
    public int rnrRetryCount() { return bits(27, 0, 3); }
    public CmRep rnrRetryCount(int v) { bits(27, 0, 3, v); return this; }
    public boolean srq() { return bits(27, 3, 1) != 0; }
    public CmRep srq(boolean v) { bits(27, 3, 1, v ? 1 : 0); return this; }
    public long localCaGuid() { return i64(28); }
    public CmRep localCaGuid(long v) { i64(28, v); return this; }
}
