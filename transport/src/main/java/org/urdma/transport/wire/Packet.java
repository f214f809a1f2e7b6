package org.urdma.transport.wire;

import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * A reusable, mutable holder of every field needed to build a frame and every field a decoder reads
 * (like rxe's {@code rxe_pkt_info} plus its headers). Plain public fields; no allocation per packet.
 * Which fields matter depends on the framing and the opcode's headers ({@link OpcodeTable}).
 *
 * <p>On decode the payload fields point INTO the received frame (no copy); on encode the payload is copied
 * once from {@code payloadBuffer[payloadOffset, payloadOffset + payloadLength)}.
 *
 * <p>{@link #reset()} restores the defaults the Linux kernel uses (P_Key 0xFFFF, TTL/hop limit 64, DF set,
 * IPv4 TOS 0), so a caller only sets what it means.
 */
public final class Packet {
    // ---- link ----
    public long dstMac;
    public long srcMac;
    public boolean vlan;
    public int pcp;
    public boolean dei;
    public int vid;

    // ---- network: IPv4 (RoCEv2 / PAXI Standard) ----
    /** RoCEv2 only: IPv6 instead of IPv4 (addresses are then {@link #sgidHi}.. / {@link #dgidHi}..). */
    public boolean ipv6;
    public int ipSrc;
    public int ipDst;
    /** Whole TOS byte: DSCP (6) and ECN (2). */
    public int tos;
    public int ttl;
    public int ipId;
    /** Flags (3 bits) and fragment offset as the 16-bit header field; {@link Ipv4Header#FLAG_DF} = 0x4000. */
    public int ipFlagsFragment;

    // ---- network: IPv6 (RoCEv2) and GRH (RoCEv1) ----
    public int trafficClass;
    public int flowLabel;
    public int hopLimit;
    public long sgidHi;
    public long sgidLo;
    public long dgidHi;
    public long dgidLo;

    // ---- UDP ----
    public int udpSrcPort;
    /** Decoded UDP checksum (encode writes 0 for RoCEv2 and 0xFFFF for PAXI Standard regardless). */
    public int udpChecksum;

    // ---- PAXI AFH ----
    /** AFH TC byte (Traffic_class[7:2] = traffic type / priority); LITE carries the VC here. */
    public int afhTc;
    public int srcXpu;
    public int opFlags;
    /**
     * AFH2 DST_QPID (16 bits). Convention: the low 16 bits of the RH DestQP, which is what
     * {@link AnyFrameDecoder} relies on to tell AFH2 from AFH1 in auto mode. LITE's only QP field.
     */
    public int dstQpid;

    // ---- BTH / RH ----
    public int opcode;
    public boolean se;
    public boolean migReq;
    /** Pad bytes after the payload (0..3); computed by encode from the payload length. */
    public int padCnt;
    public int tver;
    public int pkey;
    public boolean fecn;
    public boolean becn;
    public int resv6;
    public int destQp;
    public boolean ackReq;
    /** BTH resv7 (7 bits); bit {@link OpcodeTable#RESV7_URDMA} announces the URDMA extension headers. */
    public int resv7;
    public int psn;
    /** PAXI RH virtual channel (0..7). */
    public int vc;

    // ---- extended headers ----
    public long rethVa;
    public int rethRkey;
    public int rethDmaLength;
    public int aethSyndrome;
    public int aethMsn;
    public long atomicVa;
    public int atomicRkey;
    public long atomicSwapAdd;
    public long atomicCompare;
    public long atomicAckOriginalData;
    public int immDt;
    public int iethRkey;
    public int dethQkey;
    public int dethSrcQp;

    // ---- URDMA extensions (WIRE.md §10) ----
    public int uethFlags;
    public int tsT1;
    public int tsTr;
    public int aethExtT3;
    public int aethExtTs;
    public int aethExtPsn;
    public int sackCount;
    public int sackCumulativePsn;
    public final int[] sackRangeStart = new int[SackEth.MAX_RANGES];
    public final int[] sackRangeLength = new int[SackEth.MAX_RANGES];
    public int fecBasePsn;
    public int fecM;
    public int fecR;
    public int fecIndex;
    public int fecLengthXor;

    // ---- PAXI CBFC ----
    public final int[] cbfcCredits = new int[CbfcEth.VCS];

    // ---- payload ----
    public DirectBuffer payloadBuffer;
    public int payloadOffset;
    public int payloadLength;
    /** Where the INT stack ({@link IntStack}) starts, or -1 when the packet carries none (set by decode). */
    public int intOffset = -1;
    /**
     * The INT stack's bytes when resv7 has {@link OpcodeTable#RESV7_INT} (RoCEv2): encode appends them after the pad,
     * a full decode copies them here.
     */
    public final UnsafeBuffer intStack = new UnsafeBuffer(new byte[IntStack.LENGTH]);

    // ---- decode results ----
    /** Framing the packet was decoded from (set by decode). */
    public FramingKind framing;
    /** Header mask actually present (set by encode and decode). */
    public int headerMask;
    /** Offset of the frame's transport header (BTH/RH) in the source buffer (set by decode). */
    public int transportOffset;
    /** Frame length (set by encode and decode). */
    public int frameLength;
    /**
     * Where each extended header present starts in the decoded frame, by {@link OpcodeTable#index(int)} (set by
     * decode; entries of absent headers are stale).
     */
    public final int[] headerOffsets = new int[OpcodeTable.HEADER_KINDS];
    /**
     * Decode mode, kept across {@link #reset()}: when set, decode checks the whole frame but copies only the link and
     * network fields, the opcode, PadCnt, URDMA flags, header mask, header offsets and payload bounds; transport
     * fields stay in the frame to be read in place (the engine's receive path).
     */
    public boolean inPlace;

    public Packet() {
        reset();
    }

    /**
     * Clears what an in-place decode sets (link and network fields, opcode, PadCnt, URDMA flags, mask, payload):
     * the transport fields are not read in that mode.
     */
    public Packet resetForInPlace() {
        intOffset = -1;
        vlan = false;
        pcp = 0;
        dei = false;
        vid = 0;
        ipv6 = false;
        ipSrc = 0;
        ipDst = 0;
        tos = 0;
        trafficClass = 0;
        flowLabel = 0;
        hopLimit = 64;
        sgidHi = 0;
        sgidLo = 0;
        dgidHi = 0;
        dgidLo = 0;
        dstMac = 0;
        srcMac = 0;
        afhTc = 0;
        srcXpu = 0;
        opFlags = 0;
        dstQpid = 0;
        opcode = 0;
        padCnt = 0;
        resv7 = 0;
        uethFlags = 0;
        sackCount = 0;
        payloadBuffer = null;
        payloadOffset = 0;
        payloadLength = 0;
        headerMask = 0;
        transportOffset = 0;
        return this;
    }

    /** Clears every field to its default (kernel defaults for TTL, DF, P_Key). */
    public Packet reset() {
        // ranges beyond sackCount are never read or written; clear only the ones in use
        for (int i = Math.min(Math.max(sackCount, 0), SackEth.MAX_RANGES) - 1; i >= 0; i--) {
            sackRangeStart[i] = 0;
            sackRangeLength[i] = 0;
        }
        resetForInPlace();
        ttl = 64;
        ipId = 0;
        ipFlagsFragment = Ipv4Header.FLAG_DF;
        udpSrcPort = 0xC000;
        udpChecksum = 0;
        se = false;
        migReq = false;
        tver = 0;
        pkey = 0xFFFF;
        fecn = false;
        becn = false;
        resv6 = 0;
        destQp = 0;
        ackReq = false;
        psn = 0;
        vc = 0;
        rethVa = 0;
        rethRkey = 0;
        rethDmaLength = 0;
        aethSyndrome = 0;
        aethMsn = 0;
        atomicVa = 0;
        atomicRkey = 0;
        atomicSwapAdd = 0;
        atomicCompare = 0;
        atomicAckOriginalData = 0;
        immDt = 0;
        iethRkey = 0;
        dethQkey = 0;
        dethSrcQp = 0;
        tsT1 = 0;
        tsTr = 0;
        aethExtT3 = 0;
        aethExtTs = 0;
        aethExtPsn = 0;
        sackCumulativePsn = 0;
        fecBasePsn = 0;
        fecM = 0;
        fecR = 0;
        fecIndex = 0;
        fecLengthXor = 0;
        java.util.Arrays.fill(cbfcCredits, 0);
        framing = null;
        frameLength = 0;
        return this;
    }

    /** Points the payload at {@code buffer[offset, offset + length)} (no copy). */
    public Packet payload(final DirectBuffer buffer, final int offset, final int length) {
        payloadBuffer = buffer;
        payloadOffset = offset;
        payloadLength = length;
        return this;
    }

    /** Sets the URDMA extension bit and UETH flags in one go. */
    public Packet urdma(final int flags) {
        resv7 |= OpcodeTable.RESV7_URDMA;
        uethFlags = flags;
        return this;
    }

    /** Copies every field of {@code o} into this packet (payload by reference). */
    public Packet copyFrom(final Packet o) {
        intStack.putBytes(0, o.intStack, 0, IntStack.LENGTH);
        dstMac = o.dstMac;
        srcMac = o.srcMac;
        vlan = o.vlan;
        pcp = o.pcp;
        dei = o.dei;
        vid = o.vid;
        ipv6 = o.ipv6;
        ipSrc = o.ipSrc;
        ipDst = o.ipDst;
        tos = o.tos;
        ttl = o.ttl;
        ipId = o.ipId;
        ipFlagsFragment = o.ipFlagsFragment;
        trafficClass = o.trafficClass;
        flowLabel = o.flowLabel;
        hopLimit = o.hopLimit;
        sgidHi = o.sgidHi;
        sgidLo = o.sgidLo;
        dgidHi = o.dgidHi;
        dgidLo = o.dgidLo;
        udpSrcPort = o.udpSrcPort;
        udpChecksum = o.udpChecksum;
        afhTc = o.afhTc;
        srcXpu = o.srcXpu;
        opFlags = o.opFlags;
        dstQpid = o.dstQpid;
        opcode = o.opcode;
        se = o.se;
        migReq = o.migReq;
        padCnt = o.padCnt;
        tver = o.tver;
        pkey = o.pkey;
        fecn = o.fecn;
        becn = o.becn;
        resv6 = o.resv6;
        destQp = o.destQp;
        ackReq = o.ackReq;
        resv7 = o.resv7;
        psn = o.psn;
        vc = o.vc;
        rethVa = o.rethVa;
        rethRkey = o.rethRkey;
        rethDmaLength = o.rethDmaLength;
        aethSyndrome = o.aethSyndrome;
        aethMsn = o.aethMsn;
        atomicVa = o.atomicVa;
        atomicRkey = o.atomicRkey;
        atomicSwapAdd = o.atomicSwapAdd;
        atomicCompare = o.atomicCompare;
        atomicAckOriginalData = o.atomicAckOriginalData;
        immDt = o.immDt;
        iethRkey = o.iethRkey;
        dethQkey = o.dethQkey;
        dethSrcQp = o.dethSrcQp;
        uethFlags = o.uethFlags;
        tsT1 = o.tsT1;
        tsTr = o.tsTr;
        aethExtT3 = o.aethExtT3;
        aethExtTs = o.aethExtTs;
        aethExtPsn = o.aethExtPsn;
        sackCount = o.sackCount;
        sackCumulativePsn = o.sackCumulativePsn;
        System.arraycopy(o.sackRangeStart, 0, sackRangeStart, 0, sackRangeStart.length);
        System.arraycopy(o.sackRangeLength, 0, sackRangeLength, 0, sackRangeLength.length);
        fecBasePsn = o.fecBasePsn;
        fecM = o.fecM;
        fecR = o.fecR;
        fecIndex = o.fecIndex;
        fecLengthXor = o.fecLengthXor;
        System.arraycopy(o.cbfcCredits, 0, cbfcCredits, 0, cbfcCredits.length);
        payloadBuffer = o.payloadBuffer;
        payloadOffset = o.payloadOffset;
        payloadLength = o.payloadLength;
        framing = o.framing;
        headerMask = o.headerMask;
        transportOffset = o.transportOffset;
        frameLength = o.frameLength;
        return this;
    }

    @Override
    public String toString() {
        return Opcode.name(opcode) + " qp=0x" + Integer.toHexString(destQp) + " psn=0x" + Integer.toHexString(psn) +
            " pad=" + padCnt + " payload=" + payloadLength;
    }
}
