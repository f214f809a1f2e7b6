package org.urdma.transport.gsi;

/** ConnectRequest (IBTA Table 106): what the active side offers; the primary path only (no alternate path on RoCE). */
public final class CmReq extends CmMessage {
    /** Transport service types in the REQ: RC 0, UC 1, RD 2. */
    public static final int SERVICE_RC = 0;
    public static final int SERVICE_UC = 1;

    @Override
    public int attributeId() {
        return CmAttribute.REQ;
    }

    @Override
    protected int privateDataOffset() {
        return 140;
    }

    @Override
    public int privateDataLength() {
        return 92;
    }

    public int localCommId() { return i32(0); }
    public CmReq localCommId(int v) { i32(0, v); return this; }
    public long serviceId() { return i64(8); }
    public CmReq serviceId(long v) { i64(8, v); return this; }
    public long localCaGuid() { return i64(16); }
    public CmReq localCaGuid(long v) { i64(16, v); return this; }
    public int localQkey() { return i32(28); }
    public CmReq localQkey(int v) { i32(28, v); return this; }
    public int localQpn() { return u24(32); }
    public CmReq localQpn(int v) { u24(32, v); return this; }
    public int responderResources() { return u8(35); }
    public CmReq responderResources(int v) { u8(35, v); return this; }
    public int initiatorDepth() { return u8(39); }
    public CmReq initiatorDepth(int v) { u8(39, v); return this; }
    /** How long the active side waits for the passive side's answer (4.096 µs × 2^t). */
    public int remoteCmResponseTimeout() { return bits(43, 0, 5); }
    public CmReq remoteCmResponseTimeout(int v) { bits(43, 0, 5, v); return this; }
    public int transportServiceType() { return bits(43, 5, 2); }
    public CmReq transportServiceType(int v) { bits(43, 5, 2, v); return this; }
    public boolean endToEndFlowControl() { return bits(43, 7, 1) != 0; }
    public CmReq endToEndFlowControl(boolean v) { bits(43, 7, 1, v ? 1 : 0); return this; }
    /** The PSN the active side expects to receive first (the passive side sends from it, as cm.c sets sq_psn). */
    public int startingPsn() { return u24(44); }
    public CmReq startingPsn(int v) { u24(44, v); return this; }
    /** How long the active side takes to answer the passive side (4.096 µs × 2^t). */
    public int localCmResponseTimeout() { return bits(47, 0, 5); }
    public CmReq localCmResponseTimeout(int v) { bits(47, 0, 5, v); return this; }
    public int retryCount() { return bits(47, 5, 3); }
    public CmReq retryCount(int v) { bits(47, 5, 3, v); return this; }
    public int partitionKey() { return u16(48); }
    public CmReq partitionKey(int v) { u16(48, v); return this; }
    /** IB MTU code: 1 = 256 ... 5 = 4096. */
    public int pathMtu() { return bits(50, 0, 4); }
    public CmReq pathMtu(int v) { bits(50, 0, 4, v); return this; }
    public int rnrRetryCount() { return bits(50, 5, 3); }
    public CmReq rnrRetryCount(int v) { bits(50, 5, 3, v); return this; }
    public int maxCmRetries() { return bits(51, 0, 4); }
    public CmReq maxCmRetries(int v) { bits(51, 0, 4, v); return this; }
    public boolean srq() { return bits(51, 4, 1) != 0; }
    public CmReq srq(boolean v) { bits(51, 4, 1, v ? 1 : 0); return this; }
    public int primaryLocalLid() { return u16(52); }
    public CmReq primaryLocalLid(int v) { u16(52, v); return this; }
    public int primaryRemoteLid() { return u16(54); }
    public CmReq primaryRemoteLid(int v) { u16(54, v); return this; }
    /** The active side's GID. */
    public byte[] primaryLocalGid() { return gid(56); }
    public CmReq primaryLocalGid(byte[] g) { gid(56, g); return this; }
    /** The passive side's GID. */
    public byte[] primaryRemoteGid() { return gid(72); }
    public CmReq primaryRemoteGid(byte[] g) { gid(72, g); return this; }
    public int primaryFlowLabel() { return i32(88) >>> 12; }
    public CmReq primaryFlowLabel(int v) { i32(88, (v << 12) | (i32(88) & 0xFFF)); return this; }
    public int primaryPacketRate() { return bits(91, 2, 6); }
    public CmReq primaryPacketRate(int v) { bits(91, 2, 6, v); return this; }
    public int primaryTrafficClass() { return u8(92); }
    public CmReq primaryTrafficClass(int v) { u8(92, v); return this; }
    public int primaryHopLimit() { return u8(93); }
    public CmReq primaryHopLimit(int v) { u8(93, v); return this; }
    public int primarySl() { return bits(94, 0, 4); }
    public CmReq primarySl(int v) { bits(94, 0, 4, v); return this; }
    public boolean primarySubnetLocal() { return bits(94, 4, 1) != 0; }
    public CmReq primarySubnetLocal(boolean v) { bits(94, 4, 1, v ? 1 : 0); return this; }
    public int primaryLocalAckTimeout() { return bits(95, 0, 5); }
    public CmReq primaryLocalAckTimeout(int v) { bits(95, 0, 5, v); return this; }
}
