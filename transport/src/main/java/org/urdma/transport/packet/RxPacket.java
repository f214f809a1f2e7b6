package org.urdma.transport.packet;

import org.agrona.DirectBuffer;
import org.urdma.transport.wire.Aeth;
import org.urdma.transport.wire.AethExt;
import org.urdma.transport.wire.AtomicAckEth;
import org.urdma.transport.wire.AtomicEth;
import org.urdma.transport.wire.Bth;
import org.urdma.transport.wire.CbfcEth;
import org.urdma.transport.wire.DecodeStatus;
import org.urdma.transport.wire.Deth;
import org.urdma.transport.wire.FecEth;
import org.urdma.transport.wire.FramingKind;
import org.urdma.transport.wire.Ieth;
import org.urdma.transport.wire.ImmDt;
import org.urdma.transport.wire.OpcodeTable;
import org.urdma.transport.wire.Packet;
import org.urdma.transport.wire.Reth;
import org.urdma.transport.wire.Rh;
import org.urdma.transport.wire.SackEth;
import org.urdma.transport.wire.TransportSection;
import org.urdma.transport.wire.TsHeader;

/**
 * A received packet, read in place: the framing checked the frame (lengths, checksums, ICRC) and recorded where the
 * transport header, each extended header and the payload sit; every transport field is read from the frame when the
 * engine asks for it (rxe's {@code rxe_pkt_info} and its {@code bth_psn(pkt)}-style accessors). An extended header
 * the packet does not carry reads as 0. Valid only during {@link PacketSink#onPacket}.
 */
public final class RxPacket {
    private static final int RETH = OpcodeTable.index(OpcodeTable.HDR_RETH);
    private static final int AETH = OpcodeTable.index(OpcodeTable.HDR_AETH);
    private static final int ATOMIC = OpcodeTable.index(OpcodeTable.HDR_ATOMIC_ETH);
    private static final int ATOMIC_ACK = OpcodeTable.index(OpcodeTable.HDR_ATOMIC_ACK_ETH);
    private static final int IMM = OpcodeTable.index(OpcodeTable.HDR_IMMDT);
    private static final int IETH = OpcodeTable.index(OpcodeTable.HDR_IETH);
    private static final int DETH = OpcodeTable.index(OpcodeTable.HDR_DETH);
    private static final int CBFC = OpcodeTable.index(OpcodeTable.HDR_CBFC);
    private static final int TS = OpcodeTable.index(OpcodeTable.HDR_TS);
    private static final int AETH_EXT = OpcodeTable.index(OpcodeTable.HDR_AETH_EXT);
    private static final int SACK = OpcodeTable.index(OpcodeTable.HDR_SACK);
    private static final int FEC = OpcodeTable.index(OpcodeTable.HDR_FEC_ETH);

    /** What the framing decodes into: link and network fields, opcode, mask, header offsets, payload bounds. */
    private final Packet frame = new Packet();
    private DirectBuffer b;
    private int th;
    private boolean rh;
    private int mask;
    private Payloads payloads = Payloads.COPY;
    /** Frame bytes the payload takes: {@link #payloadLength()} unless the payloads are described, not copied. */
    private int payloadBytes;

    public RxPacket() {
        frame.inPlace = true;
    }

    /** How this link's frames carry payload (link side, set once). */
    public RxPacket payloads(Payloads p) {
        this.payloads = p;
        return this;
    }

    /** The holder a framing decodes into (in-place mode); call {@link #ready()} after a successful decode. */
    public Packet frame() {
        return frame;
    }

    /**
     * Takes the positions the decode recorded; a described payload's length is what its description says, while
     * {@link #payloadBytes()} keeps what it takes in the frame.
     */
    public RxPacket ready() {
        b = frame.payloadBuffer;
        th = frame.transportOffset;
        rh = !frame.framing.usesBth();
        mask = frame.headerMask;
        payloadBytes = frame.payloadLength;
        if (payloads != Payloads.COPY) frame.payloadLength = payloads.length(b, frame.payloadOffset, payloadBytes);
        return this;
    }

    private boolean has(int hdr) {
        return (mask & hdr) != 0;
    }

    private int at(int index) {
        return frame.headerOffsets[index];
    }

    /** Where the packet's INT stack ({@link org.urdma.transport.wire.IntStack}) starts in {@link #frameBuffer()}, or -1. */
    public int intOffset() {
        return frame.intOffset;
    }

    /** The buffer the frame is read from (its INT stack's, its headers'). */
    public DirectBuffer frameBuffer() {
        return b;
    }

    // ---------------------------------------------------------------- BTH / RH

    public int opcode() {
        return frame.opcode;
    }

    public int psn() {
        return rh ? Rh.psn(b, th) : Bth.psn(b, th);
    }

    public int destQp() {
        return rh ? Rh.destQp(b, th) : Bth.destQp(b, th);
    }

    /** P_Key; PAXI's RH has none (the default partition). */
    public int pkey() {
        return rh ? 0xFFFF : Bth.pkey(b, th);
    }

    public boolean ackReq() {
        return rh ? Rh.ackReq(b, th) : Bth.ackReq(b, th);
    }

    public boolean solicited() {
        return rh ? Rh.se(b, th) : Bth.se(b, th);
    }

    public boolean fecn() {
        return !rh && Bth.fecn(b, th);
    }

    public boolean becn() {
        return !rh && Bth.becn(b, th);
    }

    // ---------------------------------------------------------------- extended headers

    public long rethVa() {
        return has(OpcodeTable.HDR_RETH) ? Reth.va(b, at(RETH)) : 0;
    }

    public int rethRkey() {
        return has(OpcodeTable.HDR_RETH) ? Reth.rkey(b, at(RETH)) : 0;
    }

    public int rethLength() {
        return has(OpcodeTable.HDR_RETH) ? Reth.dmaLength(b, at(RETH)) : 0;
    }

    public int aethSyndrome() {
        return has(OpcodeTable.HDR_AETH) ? Aeth.syndrome(b, at(AETH)) : 0;
    }

    public int aethMsn() {
        return has(OpcodeTable.HDR_AETH) ? Aeth.msn(b, at(AETH)) : 0;
    }

    public long atomicVa() {
        return has(OpcodeTable.HDR_ATOMIC_ETH) ? AtomicEth.va(b, at(ATOMIC)) : 0;
    }

    public int atomicRkey() {
        return has(OpcodeTable.HDR_ATOMIC_ETH) ? AtomicEth.rkey(b, at(ATOMIC)) : 0;
    }

    public long atomicSwapAdd() {
        return has(OpcodeTable.HDR_ATOMIC_ETH) ? AtomicEth.swapAdd(b, at(ATOMIC)) : 0;
    }

    public long atomicCompare() {
        return has(OpcodeTable.HDR_ATOMIC_ETH) ? AtomicEth.compare(b, at(ATOMIC)) : 0;
    }

    public long atomicOrig() {
        return has(OpcodeTable.HDR_ATOMIC_ACK_ETH) ? AtomicAckEth.originalData(b, at(ATOMIC_ACK)) : 0;
    }

    public int immData() {
        return has(OpcodeTable.HDR_IMMDT) ? ImmDt.imm(b, at(IMM)) : 0;
    }

    public int invalidateRkey() {
        return has(OpcodeTable.HDR_IETH) ? Ieth.rkey(b, at(IETH)) : 0;
    }

    public int qkey() {
        return has(OpcodeTable.HDR_DETH) ? Deth.qkey(b, at(DETH)) : 0;
    }

    public int srcQp() {
        return has(OpcodeTable.HDR_DETH) ? Deth.srcQp(b, at(DETH)) : 0;
    }

    // ---------------------------------------------------------------- URDMA extensions (WIRE.md §10)

    /** The UETH flags (0 when the packet carries no URDMA headers: DC mode). */
    public int uethFlags() {
        return has(OpcodeTable.HDR_UETH) ? frame.uethFlags : 0;
    }

    public boolean hasTs() {
        return has(OpcodeTable.HDR_TS);
    }

    public int tsT1() {
        return has(OpcodeTable.HDR_TS) ? TsHeader.t1(b, at(TS)) : 0;
    }

    public int tsTr() {
        return has(OpcodeTable.HDR_TS) ? TsHeader.tr(b, at(TS)) : 0;
    }

    public boolean hasAethExt() {
        return has(OpcodeTable.HDR_AETH_EXT);
    }

    public int aethExtT3() {
        return has(OpcodeTable.HDR_AETH_EXT) ? AethExt.t3(b, at(AETH_EXT)) : 0;
    }

    public int aethExtTs() {
        return has(OpcodeTable.HDR_AETH_EXT) ? AethExt.ts(b, at(AETH_EXT)) : 0;
    }

    public int aethExtPsn() {
        return has(OpcodeTable.HDR_AETH_EXT) ? AethExt.psn(b, at(AETH_EXT)) : 0;
    }

    public boolean hasSack() {
        return has(OpcodeTable.HDR_SACK);
    }

    public int sackCount() {
        return has(OpcodeTable.HDR_SACK) ? SackEth.count(b, at(SACK)) : 0;
    }

    public int sackCumulativePsn() {
        return has(OpcodeTable.HDR_SACK) ? SackEth.cumulativePsn(b, at(SACK)) : 0;
    }

    /** The receiver's loss rate in 1/4096 (the SACK-ETH byte WIRE.md §10 leaves reserved; docs/WAN.md). */
    public int sackLoss() {
        return has(OpcodeTable.HDR_SACK) ? SackEth.loss(b, at(SACK)) : 0;
    }

    public boolean hasFecEth() {
        return has(OpcodeTable.HDR_FEC_ETH);
    }

    public int fecBasePsn() {
        return has(OpcodeTable.HDR_FEC_ETH) ? FecEth.basePsn(b, at(FEC)) : 0;
    }

    public int fecM() {
        return has(OpcodeTable.HDR_FEC_ETH) ? FecEth.m(b, at(FEC)) : 0;
    }

    public int fecR() {
        return has(OpcodeTable.HDR_FEC_ETH) ? FecEth.r(b, at(FEC)) : 0;
    }

    public int fecIndex() {
        return has(OpcodeTable.HDR_FEC_ETH) ? FecEth.index(b, at(FEC)) : 0;
    }

    public int fecLengthXor() {
        return has(OpcodeTable.HDR_FEC_ETH) ? FecEth.lengthXor(b, at(FEC)) : 0;
    }

    /** Where the transport section (BTH) starts in {@link #payload()}. */
    public int transportOffset() {
        return th;
    }

    /** End of the transport section as the frame holds it: payload (or its description) plus pad (before the ICRC). */
    public int sectionEnd() {
        return frame.payloadOffset + payloadBytes + frame.padCnt;
    }

    /**
     * Makes this a packet rebuilt from its transport section {@code section[0, length)} (P-FEC), as if it had arrived
     * from where {@code source} came from (same peer: link and network fields are copied). False when the section
     * does not decode (then this packet must not be used). Its payload is read as the source's link reads payloads, so a
     * section that carried a description is placed through the same seam as one that arrived.
     */
    public boolean rebuild(RxPacket source, DirectBuffer section, int length) {
        Packet s = source.frame;
        Packet f = frame;
        payloads = source.payloads;
        f.resetForInPlace();
        f.framing = s.framing;
        f.dstMac = s.dstMac;
        f.srcMac = s.srcMac;
        f.vlan = s.vlan;
        f.pcp = s.pcp;
        f.vid = s.vid;
        f.ipv6 = s.ipv6;
        f.ipSrc = s.ipSrc;
        f.ipDst = s.ipDst;
        f.tos = s.tos;
        f.trafficClass = s.trafficClass;
        f.flowLabel = s.flowLabel;
        f.hopLimit = s.hopLimit;
        f.sgidHi = s.sgidHi;
        f.sgidLo = s.sgidLo;
        f.dgidHi = s.dgidHi;
        f.dgidLo = s.dgidLo;
        f.afhTc = s.afhTc;
        f.srcXpu = s.srcXpu;
        if (TransportSection.decode(section, 0, length, s.framing, f) != DecodeStatus.OK) return false;
        ready();
        return true;
    }

    public int sackRangeStart(int i) {
        return SackEth.rangeStart(b, at(SACK), i);
    }

    public int sackRangeLength(int i) {
        return SackEth.rangeLength(b, at(SACK), i);
    }

    // ---------------------------------------------------------------- payload

    public DirectBuffer payload() {
        return b;
    }

    public int payloadOffset() {
        return frame.payloadOffset;
    }

    public int payloadLength() {
        return frame.payloadLength;
    }

    /** Frame bytes the payload takes ({@link #payloadLength()} when the bytes are copied). */
    public int payloadBytes() {
        return payloadBytes;
    }

    /** How the payload is placed into memory: the engine copies it with {@link Payloads#get} of this, never by hand. */
    public Payloads payloads() {
        return payloads;
    }

    /** Places {@code length} payload bytes from payload byte {@code within} into {@code dst} (the receive-side DMA). */
    public void payloadTo(int within, org.agrona.MutableDirectBuffer dst, int dstOffset, int length) {
        payloads.get(b, frame.payloadOffset, within, dst, dstOffset, length);
    }

    // ---------------------------------------------------------------- link and network

    public long srcMac() {
        return frame.srcMac;
    }

    /** The 2-bit ECN field of the IPv4 TOS or IPv6 traffic class (0, Not-ECT, where the framing has no IP header). */
    public int ecn() {
        FramingKind k = frame.framing;
        if (k != FramingKind.ROCE2 && k != FramingKind.PAXI_STANDARD) return 0;
        return (frame.ipv6 ? frame.trafficClass : frame.tos) & 3;
    }

    /** One VC's count of a PAXI CBFC credit frame (opcode 0xC0), 0 for other packets. */
    public int cbfcCredit(int vc) {
        return has(OpcodeTable.HDR_CBFC) ? CbfcEth.credit(b, at(CBFC), vc) : 0;
    }

    /** The source GID: the GRH's or IPv6 source, or the IPv4-mapped GID of the IPv4 source. */
    public long srcGidHi() {
        return carriesGid() ? frame.sgidHi : 0;
    }

    public long srcGidLo() {
        return carriesGid() ? frame.sgidLo : 0xFFFF_0000_0000L | (frame.ipSrc & 0xFFFF_FFFFL);
    }

    public long dstGidHi() {
        return carriesGid() ? frame.dgidHi : 0;
    }

    public long dstGidLo() {
        return carriesGid() ? frame.dgidLo : 0xFFFF_0000_0000L | (frame.ipDst & 0xFFFF_FFFFL);
    }

    /**
     * Whether the packet comes from {@code route}'s destination, by what this framing carries of the sender (rxe
     * check_addr): the GRH or IPv6 source GID, the IPv4 source of RoCEv2 and PAXI Standard, the low 40 bits of the
     * source MAC in AFH1, the source XPU (the MAC's low 16 bits) in AFH2.
     */
    public boolean sourceIs(Route route) {
        FramingKind k = frame.framing;
        if (k == FramingKind.PAXI_AFH1) return frame.srcMac == (route.dstMac() & 0xFF_FFFF_FFFFL);
        if (k == FramingKind.PAXI_AFH2) return frame.srcXpu == (int) (route.dstMac() & 0xFFFF);
        if (carriesGid()) return frame.sgidHi == route.dgidHi() && frame.sgidLo == route.dgidLo();
        return frame.ipSrc == route.ipv4();
    }

    private boolean carriesGid() {
        return frame.framing == FramingKind.ROCE1 || frame.ipv6;
    }

    public int trafficClass() {
        return frame.trafficClass;
    }

    public int flowLabel() {
        return frame.flowLabel;
    }

    public int hopLimit() {
        return frame.hopLimit;
    }

    @Override
    public String toString() {
        return "rx[op=0x" + Integer.toHexString(opcode()) + " qp=" + destQp() + " psn=" + psn() + " len=" + payloadLength() + "]";
    }
}
